// Excerpt of candle-core/src/utils.rs from https://github.com/huggingface/candle at 2a13b0f3f
// (MIT OR Apache-2.0, Copyright the candle authors): the two thread-count readers only, as a
// dependency whose reads vtgate envdoc must find through --deps.
use std::str::FromStr;

fn rayon_num_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| usize::from_str(&s).ok())
        .filter(|nt| nt > &0)
        .unwrap_or_else(default_num_threads)
}

fn candle_num_threads() -> usize {
    std::env::var("CANDLE_NUM_THREADS")
        .ok()
        .and_then(|s| usize::from_str(&s).ok())
        .filter(|nt| nt > &0)
        .unwrap_or_else(default_num_threads)
}
