# Excerpt from https://github.com/pypa/hatch at commit ed8e30bebf98f2fe4d70c18a32a50a8160c391cb (backend/src/hatchling/builders/config.py); license: MIT (Copyright (c) 2017-present Ofek Lev). Lines 1,3 10,10 21,21 217,218 245,258 857,863. Small excerpt for scanner testing; unmodified except for elision markers.
from __future__ import annotations

import os
# ...
from hatchling.builders.constants import DEFAULT_BUILD_DIRECTORY, EXCLUDED_DIRECTORIES, BuildEnvVars
# ...
class BuilderConfig:
    # ...
    @cached_property
    def hook_config(self) -> dict[str, Any]:
        # ...
        if not env_var_enabled(BuildEnvVars.NO_HOOKS):
            all_hooks_enabled = env_var_enabled(BuildEnvVars.HOOKS_ENABLE)
            final_hook_config = {
                hook_name: config
                for hook_name, config in hook_config.items()
                if (
                    all_hooks_enabled
                    or config.get("enable-by-default", True)
                    or env_var_enabled(f"{BuildEnvVars.HOOK_ENABLE_PREFIX}{hook_name.upper()}")
                )
            }
        else:
            final_hook_config = {}

# ...
def env_var_enabled(env_var: str, *, default: bool = False) -> bool:
    if env_var in os.environ:
        return os.environ[env_var] in {"1", "true"}

    return default


