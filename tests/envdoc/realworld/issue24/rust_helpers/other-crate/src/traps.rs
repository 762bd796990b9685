// Written for vtgate's tests (not an excerpt): calls that must not be taken for the helpers above.
use other::get_env_bool;

fn calls() {
    let _ = get_env_bool("NOT_READ_ANOTHER_CRATES_HELPER", true); // imported from elsewhere: not candle's
    let _ = shadowed("NOT_READ_SHADOWED");
    let _ = in_closure("NOT_READ_CLOSURE");
    let _ = private_helper("PRIVATE_HELPER_OWN_FILE");
}

fn shadowed(name: &str) -> Option<String> {
    let name = format!("PREFIX_{name}");
    std::env::var(&name).ok()
}

fn in_closure(name: &str) -> impl Fn() -> Option<String> + '_ {
    move || std::env::var(name).ok()
}

fn private_helper(name: &str) -> Option<String> {
    std::env::var(name).ok()
}
