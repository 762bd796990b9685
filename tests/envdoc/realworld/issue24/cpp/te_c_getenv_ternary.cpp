// Excerpt from https://github.com/NVIDIA/TransformerEngine at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b; license: Apache-2.0. Source transformer_engine/common/comm_gemm_overlap/userbuffers/userbuffers-host.cpp lines 170,175 196,205. Small excerpt for scanner testing; unmodified except for elision markers.

  int device_clock = 0;
  // 110 sec wait time by default
  int sec_timeout = getenv("UB_TIMEOUT") ? atoi(getenv("UB_TIMEOUT")) : 110;
  NVTE_CHECK_CUDA(cudaDeviceGetAttribute(&device_clock, cudaDevAttrClockRate, cur_dev));
  (*comm)->ub_timeout = 1000ull * device_clock * sec_timeout;
// ... (transformer_engine/common/comm_gemm_overlap/userbuffers/userbuffers-host.cpp)

  CPU_SET(core, &cpuset);
  if (!getenv("NVTE_NODOUBLE")) {
    if (core > 128)
      CPU_SET(core - 128, &cpuset);
    else
      CPU_SET(core + 128, &cpuset);
  }
  if (getenv("NVTE_DOPIN")) pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), &cpuset);

