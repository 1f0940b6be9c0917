"""Headers every answer carries besides Django's own (ASVS 3.4, 14.3).

- Permissions-Policy: the browser features no page uses are off for the page and anything it
  embeds (camera, microphone, geolocation, payment, USB, ...); passkeys only for our own pages.
- Cache-Control: no-store on every API answer: an answer names people and money, and no cache
  between the client and us (nor the client's own) keeps it.

The Content-Security-Policy is django-csp's (settings.CONTENT_SECURITY_POLICY); the Server
banner is dropped by gunicorn's configuration (service/gunicorn_config.py).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

#: Passkeys (WebAuthn) work in our own pages (the sign-in's code step, adding one), never in
#: anything they embed.
OWN_PAGES_ONLY = ("publickey-credentials-create", "publickey-credentials-get")
PERMISSIONS_POLICY = ", ".join(
    [f"{feature}=(self)" for feature in OWN_PAGES_ONLY]
    + [
        f"{feature}=()"
        for feature in (
            "accelerometer",
            "autoplay",
            "camera",
            "display-capture",
            "encrypted-media",
            "fullscreen",
            "geolocation",
            "gyroscope",
            "magnetometer",
            "microphone",
            "midi",
            "payment",
            "picture-in-picture",
            "screen-wake-lock",
            "sync-xhr",
            "usb",
            "xr-spatial-tracking",
        )
    ]
)
API_PREFIX = "/api/"


class SecurityHeaders:
    """Listed in MIDDLEWARE, outermost but for SecurityMiddleware: every answer gets them,
    refusals and outage pages included."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        if request.path.startswith(API_PREFIX):
            response.headers["Cache-Control"] = "no-store"
        return response
