"""The forms of signing in's second step, of password reset, and of a person's own account."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import password_validation
from django.utils.translation import gettext_lazy as _

from jobgrant.service.accounts.models import User
from jobgrant.service.accounts.passkey_models import PASSKEY_NAME_MAX

CODE_ATTRS = {"autocomplete": "one-time-code", "inputmode": "text", "spellcheck": "false"}


class CodeForm(forms.Form):
    code = forms.CharField(
        label=_("Code"),
        max_length=32,
        help_text=_("The 6 digits your authenticator app shows, or one of your recovery codes."),
        error_messages={"required": _("Enter the code.")},
        widget=forms.TextInput(attrs=CODE_ATTRS),
    )


class SetupForm(forms.Form):
    code = forms.CharField(
        label=_("Code"),
        max_length=32,
        help_text=_("The 6 digits your authenticator app shows once it has the key."),
        error_messages={"required": _("Enter the code.")},
        widget=forms.TextInput(attrs=CODE_ATTRS),
    )


class ResetRequestForm(forms.Form):
    email = forms.EmailField(
        label=_("Email address"),
        max_length=254,
        help_text=_("The address of your account: we send the link there."),
        error_messages={
            "required": _("Enter your email address."),
            "invalid": _("Enter an email address such as name@example.com."),
        },
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class NewPasswordForm(forms.Form):
    """A new password, typed twice, checked by every validator (settings)."""

    new_password = forms.CharField(
        label=_("New password"),
        max_length=4096,
        strip=False,
        help_text=_("At least 12 characters; not a common password nor one leaked in a breach."),
        error_messages={"required": _("Enter a new password.")},
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    again = forms.CharField(
        label=_("The new password again"),
        max_length=4096,
        strip=False,
        error_messages={"required": _("Enter the new password a second time.")},
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def __init__(self, user: User, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_new_password(self) -> str:
        password = str(self.cleaned_data["new_password"])
        password_validation.validate_password(password, self.user)
        return password

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("new_password") and cleaned.get("again") != cleaned["new_password"]:
            self.add_error("again", _("The two passwords differ."))
        return cleaned


class ReauthenticateForm(forms.Form):
    password = forms.CharField(
        label=_("Your password"),
        max_length=4096,
        strip=False,
        error_messages={"required": _("Enter your password.")},
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    code = forms.CharField(
        label=_("Code"),
        max_length=32,
        required=False,
        help_text=_("If you have a second factor: the code of your authenticator app."),
        widget=forms.TextInput(attrs=CODE_ATTRS),
    )


class EmailForm(forms.Form):
    email = forms.EmailField(
        label=_("New email address"),
        max_length=254,
        error_messages={
            "required": _("Enter the new email address."),
            "invalid": _("Enter an email address such as name@example.com."),
        },
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class PasskeyAnswerForm(forms.Form):
    """The browser's answer to a passkey challenge (filled in by passkey.js)."""

    credential = forms.CharField(required=False, max_length=16_384, widget=forms.HiddenInput)


class PasskeyForm(PasskeyAnswerForm):
    """A new passkey's name, and the credential the browser made for it."""

    name = forms.CharField(
        label=_("Name of the passkey"),
        max_length=PASSKEY_NAME_MAX,
        help_text=_("So you can tell your passkeys apart, for example “work laptop”."),
        error_messages={
            "required": _("Enter a name for the passkey."),
            "max_length": _("Keep the name to 64 characters or fewer."),
        },
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    field_order = ("name", "credential")
