"""The calibration targets are met within the tolerance the calibration table prints."""

from __future__ import annotations

from jobgrant.simulation.calibrate import calibrate, table


def test_every_calibration_target_is_within_its_tolerance() -> None:
    checks = calibrate(draws=6, seed=2013, workers=2)  # as calibrated (parameters' notes)
    printed = table(checks)
    failing = [c.target.name for c in checks if c.within is False]
    assert not failing, printed
    assert all(c.target.name in printed for c in checks)
