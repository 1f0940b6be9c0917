"""Settings for the test suite: the test environment, with its files in a temporary directory.

pytest-django imports this before any conftest runs, so the environment is set here.
"""

import os
import tempfile

os.environ.setdefault("JOBGRANT_ENV", "test")
os.environ.setdefault("JOBGRANT_VAR_DIR", tempfile.mkdtemp(prefix="jobgrant-test-"))

from jobgrant.service.settings import *  # noqa: F403
