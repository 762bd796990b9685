"""Read forms real projects use beyond os.environ/getenv: wrappers taking a list of names,
registration wrappers (member calls, classes), re-exported wrappers, C/C++ string constants,
Objective-C sources, and Python string transforms of known values."""

from __future__ import annotations

from vtgate.envdoc.cscan import scan_c_text
from vtgate.envdoc.model import WrapperSpec

ACCELERATE_STYLE = '''
import os


def get_int_from_env(env_keys, default):
    """Returns the first positive env value found in the `env_keys` list or the default."""
    for e in env_keys:
        val = int(os.environ.get(e, -1))
        if val >= 0:
            return val
    return default


class PartialState:
    def __init__(self):
        self.rank = get_int_from_env(["RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK"], 0)
        self.size = get_int_from_env(
            ("WORLD_SIZE", "PMI_SIZE"),
            1,
        )
'''


def test_a_wrapper_given_a_list_of_names_reads_each(reads_of) -> None:
    reads = reads_of(ACCELERATE_STYLE, wrappers=["get_int_from_env:0"])
    assert [(r.name, r.line, r.default) for r in reads] == [
        ("RANK", 16, "0"),
        ("PMI_RANK", 16, "0"),
        ("OMPI_COMM_WORLD_RANK", 16, "0"),
        ("MV2_COMM_WORLD_RANK", 16, "0"),
        ("WORLD_SIZE", 18, "1"),
        ("PMI_SIZE", 18, "1"),
    ]


def test_an_omitted_optional_name_parameter_reads_nothing(reads_of) -> None:
    code = '''
    import os

    def setting(key, env=None, default=None):
        if env is not None:
            return os.environ.get(env, default)
        return CONFIG[key]

    A = setting("cache.size")
    B = setting("cache.dir", "APP_CACHE_DIR", "/tmp")
    C = setting("cache.mode", env="APP_CACHE_MODE")
    '''
    reads = reads_of(code, wrappers=["setting:1"])
    assert [(r.name, r.default) for r in reads] == [("APP_CACHE_DIR", "/tmp"), ("APP_CACHE_MODE", None)]


def test_registration_class_with_keyword_default(reads_of) -> None:
    code = '''
    import os

    class Knob:
        def __init__(self, name, default=None, doc=""):
            self.name, self.default = name, default

        def value(self):
            return os.environ.get(self.name, self.default)

    THREADS = Knob("VT_THREADS", default="4", doc="threads")
    TRACE = Knob(name="VT_TRACE")
    '''
    reads = reads_of(code, wrappers=["Knob:0"])
    assert [(r.name, r.default) for r in reads] == [("VT_THREADS", "4"), ("VT_TRACE", None)]


def test_registration_dataclass_fields_place_keyword_arguments(reads_of) -> None:
    code = '''
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class EnvFlag:
        doc: str
        env: str
        default: str = "0"

    FLAGS = [EnvFlag("trace every op", "VT_TRACE_OPS"), EnvFlag(doc="x", env="VT_FAST", default="1")]
    '''
    reads = reads_of(code, wrappers=["EnvFlag:1:2"])
    assert [(r.name, r.default) for r in reads] == [("VT_TRACE_OPS", "0"), ("VT_FAST", "1")]


def test_python_member_call_registration(reads_of) -> None:
    code = '''
    parser = ArgRegistry()
    parser.add("--threads").set_env("APP_THREADS")
    opt = parser.add("--host")
    opt.set_env("APP_HOST")
    '''
    reads = reads_of(code, wrappers=[".set_env:0:-"])
    assert [(r.name, r.line) for r in reads] == [("APP_THREADS", 3), ("APP_HOST", 5)]


LLAMA_STYLE_ARG_CPP = r'''
#include "arg.h"
#define LLAMA_ENV_CACHE "LLAMA_CACHE"
static const char ENV_LOG_COLORS[] = "LLAMA_LOG_COLORS";
constexpr const char * ENV_OFFLINE = "LLAMA_OFFLINE";

common_arg & common_arg::set_env(const char * env) {
    help = help + "\n(env: " + env + ")";
    this->env = env;
    return *this;
}

void add_args(std::vector<common_arg> & options) {
    options.push_back(common_arg(
        {"-t", "--threads"}, "N",
        string_format("number of threads (default: %d)", params.cpuparams.n_threads),
        [](common_params & params, int value) { params.cpuparams.n_threads = value; }
    ).set_env("LLAMA_ARG_THREADS"));
    add_opt(common_arg({"--host"}, "HOST", "ip address",
        [](common_params & params, const std::string & value) { params.hostname = value; }
    )
        .set_env("LLAMA_ARG_HOST"));
    // .set_env("LLAMA_ARG_COMMENTED_OUT")
    const char * cache = getenv(LLAMA_ENV_CACHE);
    const char * colors = std::getenv(ENV_LOG_COLORS);
    if (getenv(ENV_OFFLINE)) {}
}
'''


def test_cpp_member_call_registration_and_string_constants() -> None:
    spec = WrapperSpec.parse(".set_env:0:-")
    reads = scan_c_text(LLAMA_STYLE_ARG_CPP, "common/arg.cpp", [spec]).reads
    assert [(r.name, r.line) for r in reads] == [
        ("LLAMA_ARG_THREADS", 18),
        ("LLAMA_ARG_HOST", 22),
        ("LLAMA_CACHE", 24),
        ("LLAMA_LOG_COLORS", 25),
        ("LLAMA_OFFLINE", 26),
    ]


def test_cpp_member_calls_are_not_free_wrappers_without_the_leading_dot() -> None:
    spec = WrapperSpec.parse("set_env:0")
    names = [r.name for r in scan_c_text(LLAMA_STYLE_ARG_CPP, "common/arg.cpp", [spec]).reads]
    assert "LLAMA_ARG_THREADS" not in names


def test_a_constant_defined_in_ifdef_branches_reads_each_value() -> None:
    code = '#ifdef _WIN32\n#define HOME_ENV "USERPROFILE"\n#else\n#define HOME_ENV "HOME"\n#endif\nconst char *h = getenv(HOME_ENV);\n'
    assert [(r.name, r.line) for r in scan_c_text(code, "fs.c").reads] == [("USERPROFILE", 6), ("HOME", 6)]


def test_cpp_range_for_over_an_array_of_structs_reads_each_first_field() -> None:
    code = (
        "#define HOME_DIR \"HOME\"\n"
        "fs::path hub_cache() {\n"
        "    struct { const char * var; fs::path path; } entries[] = {\n"
        '        {"HF_HUB_CACHE", fs::path()},\n'
        '        {"HF_HOME", fs::path("hub")},\n'
        '        {HOME_DIR, fs::path(".cache") / "huggingface"}\n'
        "    };\n"
        "    for (const auto & entry : entries) {\n"
        "        if (auto * p = std::getenv(entry.var); p && *p) { return p; }\n"
        "    }\n"
        "}\n"
    )
    assert [(r.name, r.line) for r in scan_c_text(code, "hf-cache.cpp").reads] == [
        ("HF_HUB_CACHE", 9), ("HF_HOME", 9), ("HOME", 9)
    ]


def test_a_name_defined_in_a_header_is_resolved_across_files(project) -> None:
    project.write("common/arg.h", '#pragma once\n#define ARG_PRESET_TIMEOUT "__PRESET_TIMEOUT"\n')
    project.write("common/arg.cpp", '#include "arg.h"\nvoid f() { opt.set_env(ARG_PRESET_TIMEOUT); getenv(UNDEFINED_HERE); }\n')
    project.doc(("__PRESET_TIMEOUT", "(unset)"))
    report = project.run(prefix="__", wrappers=[".set_env:0:-"])
    assert report.ok, report.findings
    assert [(read.name, read.file, read.line) for read in report.reads] == [("__PRESET_TIMEOUT", "common/arg.cpp", 2)]


def test_objective_c_sources_are_scanned_like_c(project) -> None:
    project.write("ios/Bridge.mm", '#import <Foundation/Foundation.h>\nconst char *v = getenv("APP_METAL_DEBUG");\n')
    project.write("ios/Log.m", 'NSString *p = @"x";\nif (getenv("APP_LOG")) {}\n')
    project.doc(("APP_METAL_DEBUG", "(unset)"), ("APP_LOG", "(unset)"))
    report = project.run(prefix="APP_")
    assert report.ok, report.findings
    assert {read.file for read in report.reads} == {"ios/Bridge.mm", "ios/Log.m"}


def test_dotted_wrapper_resolves_through_a_package_re_export(project) -> None:
    project.write("pkg/utils/env.py", "import os\n\ndef flag(name, default='0'):\n    return os.environ.get(name, default)\n")
    project.write("pkg/__init__.py", "from .utils.env import flag\n")
    project.write("app/main.py", 'import pkg\nfrom pkg import flag\nA = pkg.flag("VT_A")\nB = flag("VT_B", "1")\n')
    project.write("app/other.py", 'from otherlib import flag\nC = flag("VT_NOT_OURS")\n')
    project.write("app/local.py", 'def flag(name):\n    return name\n\nD = flag("not an env var")\n')
    project.doc(("VT_A", "0"), ("VT_B", "1"))
    report = project.run(wrappers=["pkg.utils.env.flag:0"])
    assert report.ok, report.findings
    assert [(r.name, r.file, r.line) for r in report.reads] == [("VT_A", "app/main.py", 3), ("VT_B", "app/main.py", 4)]
    assert report.notes == [
        "wrapper pkg.utils.env.flag:0: 2 other call(s) of a function named flag do not resolve to it and were "
        "not read (first: app/local.py:4); the bare name (flag:0) would read them"
    ]


def test_python_string_transforms_of_known_values(reads_of) -> None:
    code = '''
    import os

    PREFIX = "VT"
    for key in ("threads", "trace"):
        os.environ.get(key.upper())
    os.environ.get("%s_CACHE" % PREFIX)
    os.environ.get("%s_%s" % (PREFIX, "MODE"))
    os.environ.get("{}_LOG".format(PREFIX))
    for part in ("A", "B"):
        os.environ.get("VT_ARM_%s" % part.lower())

    def f(p):
        return os.environ.get("%s_DEBUG" % p)
    '''
    reads = reads_of(code)
    assert [(r.name, r.prefix, r.suffix) for r in reads] == [
        ("THREADS", "THREADS", ""),
        ("TRACE", "TRACE", ""),
        ("VT_CACHE", "VT_CACHE", ""),
        ("VT_MODE", "VT_MODE", ""),
        ("VT_LOG", "VT_LOG", ""),
        ("VT_ARM_a", "VT_ARM_a", ""),
        ("VT_ARM_b", "VT_ARM_b", ""),
        (None, "", "_DEBUG"),
    ]


def test_a_family_with_a_leading_wildcard_covers_a_computed_name_with_that_suffix(project) -> None:
    project.write("app/log.py", 'import os\n\ndef level(component):\n    return os.environ.get(f"{component}_DEBUG")\n')
    project.write("app/a.py", 'import os\nA = os.environ.get("APP_A")\n')
    project.doc(("APP_A", "(unset)"), ("{PREFIX}_DEBUG", "(unset)"))
    report = project.run(prefix="")
    assert report.ok, report.findings
    assert report.dynamic_covered == [{"prefix": "", "file": "app/log.py", "line": 4, "by": "*_DEBUG"}]


def test_cpp_range_for_over_an_array_of_literal_names_reads_each() -> None:
    code = (
        "static std::string default_path() {\n"
        '    const char * const env_vars[] = { "ET_TOOLCHAIN", "TOOLCHAIN_ROOT" };\n'
        "    for (const char * var : env_vars) {\n"
        "        if (const char * p = std::getenv(var)) { return p; }\n"
        "    }\n"
        "}\n"
    )
    assert [(r.name, r.line) for r in scan_c_text(code, "et.cpp").reads] == [("ET_TOOLCHAIN", 4), ("TOOLCHAIN_ROOT", 4)]


def test_objective_c_process_info_environment_lookups() -> None:
    code = (
        'NSString * a = [[NSProcessInfo processInfo].environment objectForKey:@"GGML_METAL_PATH_RESOURCES"];\n'
        'NSString * b = [[NSProcessInfo processInfo] environment][@"APP_TRACE"];\n'
        'NSString * c = [[[NSProcessInfo processInfo] environment] valueForKey:@"APP_LOG"];\n'
        '[dict setObject:@"1" forKey:@"GGML_METAL_HAS_BF16"];\n'
    )
    reads = scan_c_text(code, "ggml-metal-device.m").reads
    assert [(r.name, r.line) for r in reads] == [("GGML_METAL_PATH_RESOURCES", 1), ("APP_TRACE", 2), ("APP_LOG", 3)]


def test_a_loop_over_a_constant_dicts_keys_reads_each(reads_of) -> None:
    code = '''
    import os

    _DEPRECATED_ENV_VARS: dict[str, str] = {
        "VT_OLD_READ_MODE": "read_mode",
        "VT_OLD_NUM_WORKERS": "num_workers",
    }

    def warn_deprecated():
        for env_var, new_key in _DEPRECATED_ENV_VARS.items():
            if env_var in os.environ:
                print(env_var, new_key)
        for key in _DEPRECATED_ENV_VARS:
            os.environ.get(key)
        for other in {"VT_A": 1}.keys():
            os.environ.get(other)
    '''
    reads = reads_of(code)
    assert [(r.name, r.line) for r in reads] == [
        ("VT_OLD_READ_MODE", 11), ("VT_OLD_NUM_WORKERS", 11),
        ("VT_OLD_READ_MODE", 14), ("VT_OLD_NUM_WORKERS", 14),
        ("VT_A", 16),
    ]
