// Excerpt from https://github.com/EricLBuehler/mistral.rs at commit 9e922623f24b32d41f3892b74f0eed18707f4e6c; license: MIT. Source mistralrs-sandbox/src/lib.rs lines 46-50, 206-214, 243-249. Small excerpt for scanner testing; unmodified except for elision markers.
const DEVELOPER_ROOT_ENV: &[&str] = &[
    "ASDF_DATA_DIR",
    "ASDF_DIR",
    "BUN_INSTALL",
    "CONDA_PREFIX",
    // ...
];
// ...

fn apply_developer_profile(policy: &mut SandboxPolicy) {
    extend_unique_str(&mut policy.extra_env, DEVELOPER_ENV);
    extend_unique_str(&mut policy.extra_env, DEVELOPER_ROOT_ENV);
    extend_unique_str(&mut policy.extra_env, DEVELOPER_PATH_ENV);

    for var in DEVELOPER_ROOT_ENV {
        push_env_paths(&mut policy.extra_fs_read, var);
    }
    // ...
}
// ...
fn push_env_paths(paths: &mut Vec<PathBuf>, var: &str) {
    if let Some(value) = std::env::var_os(var) {
        for path in std::env::split_paths(&value) {
            push_existing_path(paths, path);
        }
    }
}
