# Excerpt from https://github.com/pypa/hatch at commit ed8e30bebf98f2fe4d70c18a32a50a8160c391cb (backend/src/hatchling/version/scheme/plugin/interface.py); license: MIT (Copyright (c) 2017-present Ofek Lev). Lines 1,3 8,8 57,57 67,70. Small excerpt for scanner testing; unmodified except for elision markers.
from __future__ import annotations

import os
# ...
class VersionSchemeInterface(ABC):  # no cov
    # ...
    def validate_bump(self) -> bool:
        # ...
        from hatchling.utils.constants import VersionEnvVars

        if VersionEnvVars.VALIDATE_BUMP in os.environ:
            return os.environ[VersionEnvVars.VALIDATE_BUMP] not in {"false", "0"}
