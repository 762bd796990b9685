# Excerpt from https://github.com/NVIDIA/TransformerEngine at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b; license: Apache-2.0. Source transformer_engine/pytorch/attention/dot_product_attention/backends.py lines 2051,2053; transformer_engine/pytorch/attention/dot_product_attention/utils.py lines 512,521; transformer_engine/common/__init__.py lines 388,388. Small excerpt for scanner testing; unmodified except for elision markers.
        self.use_FAv2_bwd = os.getenv(
            "NVTE_FUSED_ATTN_USE_FAv2_BWD", "0"
        ) == "1" and get_device_compute_capability() == (9, 0)
# ... (transformer_engine/pytorch/attention/dot_product_attention/utils.py)
        run_config["NVTE_DPA_FP8_RECIPE"] = _dpa_fp8_recipe
        if _dpa_fp8_recipe != "":
            # config new recipe if switched
            run_config["NVTE_DPA_FP8_FORMAT"] = os.environ.get("NVTE_DPA_FP8_FORMAT", "HYBRID")
            run_config["NVTE_DPA_FP8DS_AMAX_ALGO"] = os.environ.get(
                "NVTE_DPA_FP8DS_AMAX_ALGO", "most_recent"
            )
            run_config["NVTE_DPA_FP8DS_AMAX_HISTLEN"] = int(
                os.environ.get("NVTE_DPA_FP8DS_AMAX_HISTLEN", "1")
            )
# ... (transformer_engine/common/__init__.py)
if "NVTE_PROJECT_BUILDING" not in os.environ or bool(int(os.getenv("NVTE_RELEASE_BUILD", "0"))):
