# Excerpt from https://github.com/pypa/hatch at commit ed8e30bebf98f2fe4d70c18a32a50a8160c391cb (backend/src/hatchling/utils/constants.py); license: MIT (Copyright (c) 2017-present Ofek Lev). Lines 5,6. Small excerpt for scanner testing; unmodified except for elision markers.
class VersionEnvVars:
    VALIDATE_BUMP = "HATCH_VERSION_VALIDATE_BUMP"
