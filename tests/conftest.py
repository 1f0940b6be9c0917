"""Test-wide settings: the service runs in its test environment, with its files in a temp dir."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("JOBGRANT_ENV", "test")
os.environ.setdefault("JOBGRANT_VAR_DIR", tempfile.mkdtemp(prefix="jobgrant-test-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jobgrant.service.settings")
