// Excerpt from https://github.com/NVIDIA/TransformerEngine at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b; license: Apache-2.0. Source transformer_engine/common/gemm/cublaslt_gemm.cu lines 1063,1067; transformer_engine/jax/csrc/extensions/cgemm_helper.cpp lines 19,22; transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp lines 142,145 166,169. Small excerpt for scanner testing; unmodified except for elision markers.
  const int current_device = transformer_engine::cuda::current_device();
  const bool is_hopper = (transformer_engine::cuda::sm_arch(current_device) == 90);
  const bool use_cutlass = transformer_engine::getenv<bool>("NVTE_USE_CUTLASS_GROUPED_GEMM", false);
  const bool warn_fallback =
      transformer_engine::getenv<bool>("NVTE_CUTLASS_GROUPED_GEMM_WARN_FALLBACK", false);
// ... (transformer_engine/jax/csrc/extensions/cgemm_helper.cpp)
  bool is_tp_leader = (get_local_device_id_within_tp_domain() == 0);

  std::string base_path = getenv<std::string>("NVTE_JAX_NCCL_FILE_PATH", "/tmp");
  std::string id_file = base_path + "/nccl_" + id_type + "_unique_id_" +
// ... (transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp)
  int sm_count = transformer_engine::cuda::sm_count();
  _math_sms = (set_sm_margin) ? sm_count - num_comm_sm : sm_count;
  _math_sms -= transformer_engine::getenv<int>("NVTE_EXT_MARGIN_SM", 0);

// ... (transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp)
    This is needed only for Hopper, which uses persistent CTA execution.
  */
  int max_connection = transformer_engine::getenv<int>("CUDA_DEVICE_MAX_CONNECTIONS", 8);
  int runtime_version = 0;
