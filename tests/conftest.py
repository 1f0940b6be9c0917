"""The service's test settings (jobgrant.service.test_settings) are chosen in pyproject.toml."""
