"""The trainees of an agreement: invitations, the participant form, reminders, SIN keys."""
