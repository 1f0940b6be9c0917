"""Settings for the test suite: the test environment, with its files in a temporary directory.

pytest-django imports this before any conftest runs, so the environment is set here.
"""

import os
import tempfile

os.environ.setdefault("JOBGRANT_ENV", "test")
os.environ.setdefault("JOBGRANT_VAR_DIR", tempfile.mkdtemp(prefix="jobgrant-test-"))
# Fixed keys, so that the seeded database built once (tests/seeded.py) reads the same in every
# test process and run: what it stores under a key (a sealed secret, a keyed index) stays readable.
# Test values only: production refuses to start without keys of its own.
os.environ.setdefault("JOBGRANT_SECRET_KEY", "test-only-secret-key-" + "x" * 40)
os.environ.setdefault("JOBGRANT_SIN_KEYS", "t1:" + "dGVzdC1vbmx5LXNpbi1rZXktMzItYnl0ZXMtbG9uZyE=")
os.environ.setdefault("JOBGRANT_SIN_INDEX_KEY", "dGVzdC1vbmx5LXNpbi1pbmRleC1rZXktMzItYnl0ZXM=")
os.environ.setdefault("JOBGRANT_OTP_KEYS", "t1:" + "dGVzdC1vbmx5LW90cC1zZWFsaW5nLWtleS0zMmJ5dGU=")
os.environ.setdefault(
    "JOBGRANT_EVALUATION_KEYS", "t1:" + "dGVzdC1vbmx5LWV2YWx1YXRpb24ta2V5LTMyYnl0ZXM="
)

from jobgrant.service.settings import *  # noqa: F403
