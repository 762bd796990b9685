#include <cstdlib>

int tl_sycl_get_env(const char * env_name, int default_val) {
    char * user = getenv(env_name);
    return user ? atoi(user) : default_val;
}

void tl_sycl_init(int & debug, int & graph) {
    debug = tl_sycl_get_env("TL_SYCL_DEBUG", 0);
    graph = tl_sycl_get_env("TL_SYCL_DISABLE_GRAPH", 1);
}
