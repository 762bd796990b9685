// Excerpt from https://github.com/huggingface/candle at commit 2a13b0f3ff62f7e67013597f2996f764c5735e21; license: MIT OR Apache-2.0. Source candle-metal-kernels/src/kernel.rs lines 5, 192-196. Small excerpt for scanner testing; unmodified except for elision markers.
use crate::utils::get_env_bool;
// ...
fn get_compile_options() -> Retained<MTLCompileOptions> {
    let compile_options = MTLCompileOptions::new();
    //unsafe { compile_options.setEnableLogging(true) };

    let fast_math_enabled = get_env_bool("CANDLE_METAL_ENABLE_FAST_MATH", true);
    // ...
}
