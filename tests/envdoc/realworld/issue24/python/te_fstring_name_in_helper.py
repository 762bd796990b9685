# Excerpt from https://github.com/NVIDIA/TransformerEngine at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b; license: Apache-2.0. Source transformer_engine/common/__init__.py lines 327,344 362,380 392,397. Small excerpt for scanner testing; unmodified except for elision markers.
@functools.lru_cache(maxsize=None)
def _load_cuda_library_from_system(lib_name: str):
    """
    Attempts to load shared object file installed via system/cuda-toolkit.

    `lib_name`: Name of library to load without extension or `lib` prefix.
    """

    # Where to look for the shared lib in decreasing order of preference.
    paths = (
        os.environ.get(f"{lib_name.upper()}_HOME"),
        os.environ.get(f"{lib_name.upper()}_PATH"),
        os.environ.get("CUDA_HOME"),
        os.environ.get("CUDA_PATH"),
        "/usr/local/cuda",
    )

    for path in paths:
# ... (transformer_engine/common/__init__.py)
def _load_cuda_library(lib_name: str):
    """
    Load given shared library.
    Prioritize loading from system/toolkit
    before checking python packages.
    """

    # Attempt to locate library in system.
    found, handle = _load_cuda_library_from_system(lib_name)
    if found:
        return True, handle

    # Attempt to locate library in Python dist-packages.
    found, handle = _load_cuda_library_from_python(lib_name)
    if found:
        return False, handle

    raise RuntimeError(f"{lib_name} shared object not found.")

# ... (transformer_engine/common/__init__.py)
    # during runtime. Both system and pypi packages are searched
    # and an error is thrown if not found.
    _, _CUDNN_LIB_CTYPES = _load_cuda_library("cudnn")
    system_nvrtc, _NVRTC_LIB_CTYPES = _load_cuda_library("nvrtc")
    system_curand, _CURAND_LIB_CTYPES = _load_cuda_library("curand")

