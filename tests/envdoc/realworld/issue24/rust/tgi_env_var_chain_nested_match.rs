// Excerpt from https://github.com/huggingface/text-generation-inference at commit db931fcf42da018a3657580c64bf2720f167f9ab; license: Apache-2.0. Source router/src/server.rs lines 1540,1562; launcher/src/main.rs lines 1262,1266 1285,1289. Small excerpt for scanner testing; unmodified except for elision markers.
    // Parse Huggingface hub token
    let authorization_token = std::env::var("HF_TOKEN")
        .or_else(|_| std::env::var("HUGGING_FACE_HUB_TOKEN"))
        .ok();

    // Tokenizer instance
    // This will only be used to validate payloads
    let local_path = Path::new(&tokenizer_name);

    // Shared API builder initialization
    let api_builder = || {
        let mut builder = ApiBuilder::from_env().with_progress(false);
        if let Some(token) = authorization_token {
            builder = builder.with_token(Some(token));
        }

        if let Ok(cache_dir) = std::env::var("HUGGINGFACE_HUB_CACHE") {
            builder = builder.with_cache_dir(cache_dir.into());
        }

        if let Ok(origin) = std::env::var("HF_HUB_USER_AGENT_ORIGIN") {
            builder = builder.with_user_agent("origin", origin.as_str());
        }
// ... (launcher/src/main.rs)
fn num_cuda_devices() -> Option<usize> {
    let devices = match env::var("CUDA_VISIBLE_DEVICES") {
        Ok(devices) => devices,
        Err(_) => match env::var("NVIDIA_VISIBLE_DEVICES") {
            Ok(devices) => {
// ... (launcher/src/main.rs)
                }
            }
            Err(_) => env::var("ZE_AFFINITY_MASK").ok()?,
        },
    };
