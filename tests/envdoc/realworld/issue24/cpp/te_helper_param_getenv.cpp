// Excerpt from https://github.com/NVIDIA/TransformerEngine at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b; license: Apache-2.0. Source transformer_engine/common/transformer_engine.cpp lines 405,412 529,534 617,622. Small excerpt for scanner testing; unmodified except for elision markers.
size_t GetTensorHandlePoolSizeMB(const char *env_var) {
  const char *env_value = std::getenv(env_var);
  if (env_value == nullptr || env_value[0] == '\0') {
    return kDefaultTensorHandlePoolSizeMB;
  }

  const std::string value(env_value);
  constexpr const char *kWhitespace = " \t\n\r\f\v";
// ... (transformer_engine/common/transformer_engine.cpp)
  // Should be replaced by virtual memory allocation
  const size_t TENSOR_HANDLE_POOL_SIZE_MB =
      GetTensorHandlePoolSizeMB("NVTE_TENSOR_HANDLE_POOL_SIZE_MB");
  const size_t MAX_TENSOR_NUM = GetTensorHandlePoolCapacity(
      TENSOR_HANDLE_POOL_SIZE_MB, sizeof(Tensor), "NVTETensor", "NVTE_TENSOR_HANDLE_POOL_SIZE_MB");
  std::vector<uintptr_t> free_list;
// ... (transformer_engine/common/transformer_engine.cpp)
  std::atomic<size_t> size;
  const size_t GROUPED_TENSOR_HANDLE_POOL_SIZE_MB =
      GetTensorHandlePoolSizeMB("NVTE_GROUPED_TENSOR_HANDLE_POOL_SIZE_MB");
  const size_t MAX_GROUPED_TENSOR_NUM =
      GetTensorHandlePoolCapacity(GROUPED_TENSOR_HANDLE_POOL_SIZE_MB, sizeof(GroupedTensor),
                                  "NVTEGroupedTensor", "NVTE_GROUPED_TENSOR_HANDLE_POOL_SIZE_MB");
