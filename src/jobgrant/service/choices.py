"""Choices the service's models share."""

from jobgrant.rules.codes import JURISDICTION_CODES

JURISDICTION_CHOICES = [(code, code) for code in JURISDICTION_CODES]
