#include <cstdlib>
#include <string>

static std::string default_toolchain() {
    const char * const env_vars[] = { "ET_TOOLCHAIN", "TOOLCHAIN_ROOT" };
    for (const char * var : env_vars) {
        if (const char * p = std::getenv(var)) { return p; }
    }
    return "/opt/et";
}
