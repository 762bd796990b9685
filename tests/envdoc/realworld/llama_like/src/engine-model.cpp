#include <cstdlib>

namespace engine {
static bool env_flag(const char * name, bool fallback) {
    const char * v = std::getenv(name);
    return v ? v[0] == '1' : fallback;
}

void load(model & m) {
    m.use_mmap = !env_flag("ENGINE_NO_MMAP", false);
    m.verbose = env_flag("ENGINE_VERBOSE", false);
}
}  // namespace engine
