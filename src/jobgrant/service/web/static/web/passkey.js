// Passkeys (WebAuthn): a form marked data-passkey="<options JSON>" asks the browser for a
// passkey when it is sent (data-ceremony "create" adds one, "get" signs in with one), puts the
// browser's answer in its hidden `credential` field as JSON, then sends the form. The server
// checks everything (py_webauthn); a cancelled or failed ceremony sends the form with no
// answer, and the page that comes back says what happened, in the person's language.
// A file of its own, not an inline script: the Content-Security-Policy allows scripts from this
// origin only (script-src 'self'). Without script (or without passkey support) the elements
// marked data-passkey-ready stay hidden and the code, or the explanation, does the work.

const toBytes = (text) =>
  Uint8Array.from(
    atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4)),
    (c) => c.charCodeAt(0),
  );
const toText = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const withIds = (list) => (list || []).map((c) => ({ ...c, id: toBytes(c.id) }));

function creationOptions(options) {
  return {
    ...options,
    challenge: toBytes(options.challenge),
    user: { ...options.user, id: toBytes(options.user.id) },
    excludeCredentials: withIds(options.excludeCredentials),
  };
}

function requestOptions(options) {
  return { ...options, challenge: toBytes(options.challenge), allowCredentials: withIds(options.allowCredentials) };
}

function answer(credential) {
  const r = credential.response;
  const response = { clientDataJSON: toText(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toText(r.attestationObject);
    response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    response.authenticatorData = toText(r.authenticatorData);
    response.signature = toText(r.signature);
    if (r.userHandle) response.userHandle = toText(r.userHandle);
  }
  return {
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
  };
}

async function ceremony(form) {
  const options = JSON.parse(form.dataset.passkey);
  const credential = form.dataset.ceremony === "create"
    ? await navigator.credentials.create({ publicKey: creationOptions(options) })
    : await navigator.credentials.get({ publicKey: requestOptions(options) });
  return JSON.stringify(answer(credential));
}

if (window.PublicKeyCredential && navigator.credentials) {
  for (const element of document.querySelectorAll("[data-passkey-ready]")) element.hidden = false;
  for (const element of document.querySelectorAll("[data-passkey-unsupported]")) element.hidden = true;
  for (const form of document.querySelectorAll("form[data-passkey]")) {
    form.addEventListener("submit", async (event) => {
      const field = form.querySelector("input[name=credential]");
      const name = form.querySelector("input[name=name]");
      // Already answered, or no name yet (the page says so first): the form goes as it is.
      if (field.value || (name && !name.value.trim())) return;
      event.preventDefault();
      try {
        field.value = await ceremony(form);
      } catch (error) {
        field.value = "";  // cancelled, timed out or refused: the server says so
        console.warn("passkey:", error.name, error.message);
      }
      form.submit();
    });
  }
}
