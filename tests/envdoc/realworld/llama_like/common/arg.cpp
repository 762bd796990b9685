// Modelled on the argument registry of a C++ inference engine (written for this fixture, not
// copied): each option is a builder object; .set_env("NAME") declares the env var that the
// generic loop in get_value_from_env() reads later.
#include "arg.h"

#include <cstdlib>
#include <string>
#include <vector>

#define ENGINE_ENV_CACHE "ENGINE_CACHE"
static const char ENV_LOG_COLORS[] = "ENGINE_LOG_COLORS";
constexpr const char * ENV_OFFLINE = "ENGINE_OFFLINE";

engine_arg & engine_arg::set_env(const char * env) {
    help = help + "\n(env: " + env + ")";
    this->env = env;
    return *this;
}

bool engine_arg::get_value_from_env(std::string & output) const {
    if (env == nullptr) return false;
    char * value = std::getenv(env);
    if (value) {
        output = value;
        return true;
    }
    return false;
}

static std::string cache_directory() {
    const char * dir = getenv(ENGINE_ENV_CACHE);
    if (dir) return dir;
    const char * const fallbacks[] = { "XDG_CACHE_HOME", "HOME" };
    for (const char * var : fallbacks) {
        if (const char * p = std::getenv(var)) return p;
    }
    return ".";
}

engine_params_context engine_params_parser_init(engine_params & params) {
    auto ctx = engine_params_context(params);
    auto add_opt = [&](engine_arg arg) { ctx.options.push_back(std::move(arg)); };

    add_opt(engine_arg(
        {"-t", "--threads"}, "N",
        string_format("number of threads to use during generation (default: %d)", params.n_threads),
        [](engine_params & params, int value) { params.n_threads = value; }
    ).set_env("ENGINE_ARG_THREADS"));
    add_opt(engine_arg(
        {"-c", "--ctx-size"}, "N",
        "size of the prompt context (default: 4096, 0 = loaded from model)",
        [](engine_params & params, int value) { params.n_ctx = value; }
    ).set_env("ENGINE_ARG_CTX_SIZE"));
    add_opt(engine_arg(
        {"--host"}, "HOST",
        "ip address to listen, or bind to an UNIX socket if the address ends with .sock (default: 127.0.0.1)",
        [](engine_params & params, const std::string & value) { params.hostname = value; }
    )
        .set_examples({ENGINE_EXAMPLE_SERVER})
        .set_env("ENGINE_ARG_HOST"));
    add_opt(engine_arg(
        {"--port"}, "PORT", "port to listen (default: 8080)",
        [](engine_params & params, int value) { params.port = value; }
    ).set_examples({ENGINE_EXAMPLE_SERVER}).set_env("ENGINE_ARG_PORT"));
    add_opt(engine_arg(
        {"--log-colors"}, "[on|off|auto]", "colored logging",
        [](engine_params & params, const std::string & value) { params.log_colors = value; }
    ).set_env(ENV_LOG_COLORS));
    // add_opt(engine_arg({"--old"}, "removed").set_env("ENGINE_ARG_OLD"));
    if (getenv(ENV_OFFLINE)) {
        params.offline = true;
    }
    const char * no_color = "NO_COLOR";  // a string that is not a read
    (void) no_color;
    return ctx;
}
