// Excerpt from https://github.com/huggingface/text-generation-inference at commit db931fcf42da018a3657580c64bf2720f167f9ab; license: Apache-2.0. Source launcher/src/main.rs lines 873,886. Small excerpt for scanner testing; unmodified except for elision markers.
    /// Disable outlines grammar constrained generation.
    /// This is a feature that allows you to generate text that follows a specific grammar.
    #[clap(long, env)]
    disable_grammar_support: bool,

    /// Display a lot of information about your runtime environment
    #[clap(long, short, action)]
    env: bool,

    /// Control the maximum number of inputs that a client can send in a single request
    #[clap(default_value = "4", long, env)]
    max_client_batch_size: usize,

    /// Lora Adapters a list of adapter ids i.e. `repo/adapter1,repo/adapter2` to load during
