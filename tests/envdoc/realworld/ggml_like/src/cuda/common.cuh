#pragma once
#include <cstdlib>

static int tl_cuda_env_int(const char * name, int fallback) {
    const char * value = getenv(name);
    return value == nullptr ? fallback : atoi(value);
}

static bool tl_cuda_graphs_disabled() {
    static const bool disabled = std::getenv("TL_CUDA_DISABLE_GRAPHS") != nullptr;
    return disabled;
}

static int tl_cuda_peer_max() {
    return tl_cuda_env_int("TL_CUDA_PEER_MAX_BATCH_SIZE", 128);
}
