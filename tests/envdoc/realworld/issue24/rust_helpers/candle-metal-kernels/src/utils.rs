// Excerpt from https://github.com/huggingface/candle at commit 2a13b0f3ff62f7e67013597f2996f764c5735e21; license: MIT OR Apache-2.0. Source candle-metal-kernels/src/utils.rs lines 3, 370-372. Small excerpt for scanner testing; unmodified except for elision markers.
use std::ffi::OsStr;
// ...
pub(crate) fn get_env_bool<K: AsRef<OsStr>>(key: K, default: bool) -> bool {
    std::env::var(key).map(is_truthy).unwrap_or(default)
}
