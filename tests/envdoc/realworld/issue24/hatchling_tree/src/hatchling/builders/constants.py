# Excerpt from https://github.com/pypa/hatch at commit ed8e30bebf98f2fe4d70c18a32a50a8160c391cb (backend/src/hatchling/builders/constants.py); license: MIT (Copyright (c) 2017-present Ofek Lev). Lines 35,42. Small excerpt for scanner testing; unmodified except for elision markers.
class BuildEnvVars:
    LOCATION = "HATCH_BUILD_LOCATION"
    HOOKS_ONLY = "HATCH_BUILD_HOOKS_ONLY"
    NO_HOOKS = "HATCH_BUILD_NO_HOOKS"
    HOOKS_ENABLE = "HATCH_BUILD_HOOKS_ENABLE"
    HOOK_ENABLE_PREFIX = "HATCH_BUILD_HOOK_ENABLE_"
    CLEAN = "HATCH_BUILD_CLEAN"
    CLEAN_HOOKS_AFTER = "HATCH_BUILD_CLEAN_HOOKS_AFTER"
