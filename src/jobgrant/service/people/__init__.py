"""A person's account and organization: registration, confirmation, invitations, memberships,
staff accounts, registration attempts, the password reset (actions over accounts' models)."""
