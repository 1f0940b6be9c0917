"""Where receipts are kept: the file system by default, an S3-compatible store when the settings
say so (django-storages; no S3 is reached here: only the configuration is read)."""

from __future__ import annotations

import os
import subprocess
import sys

SHOW = (
    "import json; from django.conf import settings; "
    "print(json.dumps(settings.STORAGES['receipts'], default=str))"
)


def settings_with(**env: str) -> subprocess.CompletedProcess[str]:
    variables = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "jobgrant.service.test_settings",
        **env,
    }
    code = f"import django; django.setup(); {SHOW}"
    return subprocess.run(
        [sys.executable, "-c", code], env=variables, capture_output=True, text=True, check=False
    )


def test_receipts_go_to_the_file_system_under_var_by_default() -> None:
    shown = settings_with(JOBGRANT_VAR_DIR="/tmp/jobgrant-receipts-test")
    assert shown.returncode == 0, shown.stderr
    assert '"django.core.files.storage.FileSystemStorage"' in shown.stdout
    assert "/tmp/jobgrant-receipts-test/receipts" in shown.stdout


def test_s3_is_chosen_by_setting_with_its_bucket_and_endpoint() -> None:
    shown = settings_with(
        JOBGRANT_RECEIPTS_STORAGE="s3",
        JOBGRANT_RECEIPTS_S3_BUCKET="jobgrant-receipts",
        JOBGRANT_RECEIPTS_S3_ENDPOINT_URL="https://objects.example.ca",
    )
    assert shown.returncode == 0, shown.stderr
    assert '"storages.backends.s3.S3Storage"' in shown.stdout
    assert '"bucket_name": "jobgrant-receipts"' in shown.stdout
    assert '"default_acl": "private"' in shown.stdout
    from storages.backends.s3 import S3Storage  # the dependency is installed

    assert S3Storage is not None


def test_s3_without_a_bucket_is_a_configuration_error() -> None:
    shown = settings_with(JOBGRANT_RECEIPTS_STORAGE="s3")
    assert shown.returncode != 0
    assert "JOBGRANT_RECEIPTS_S3_BUCKET is required" in shown.stderr
