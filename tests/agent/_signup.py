"""The sign-up page of the agent tests and a scripted model that fills it by reading prompts.

The page (127.0.0.1) spreads a form over a tall page: first name at the top,
country far below (choosing one inserts a Region field *before* the last
name, so the ids after it shift), then a cross-origin iframe (localhost)
with the email, an "I agree" checkbox and a "Confirm email" button that
tells the parent page by ``postMessage``, then Submit at the bottom.
``window.rerender()`` rebuilds the whole form (fields and Submit) from its
state with a new notice above it: same labels and values, new DOM nodes,
shifted ids.

:func:`signup_policy` is the model: a function of the prompt text only. It
finds every id by reading the snapshot in the prompt (never a fixed
number) and decides from what the page shows (values, checked states,
texts).
"""

from __future__ import annotations

import re

from kobrowser.agent import Message

SPACER = '<div style="height: 1400px"></div>'

SIGNUP = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Sign up</title></head><body>
<h1>Sign up</h1>
<div id="app"></div>
<section>SPACER
<iframe title="Email" src="FRAME_URL" style="width: 400px; height: 160px"></iframe>
<p id="confirmed">Email not confirmed</p>
</section>
SPACER
<div id="actions"></div>
<p id="result">Not registered</p>
<script>
const state = {first: '', last: '', country: '', region: '', email: '', restored: false};
function field(label, key) {
  const value = state[key].replace(/"/g, '&quot;');
  return `<p><label>${label} <input data-key="${key}" value="${value}"></label></p>`;
}
function render() {
  const options = ['', 'France', 'Japan'].map(
    (c) => `<option ${c === state.country ? 'selected' : ''}>${c}</option>`).join('');
  const notice = state.restored ? '<p>The form was restored</p>' : '';
  document.getElementById('app').innerHTML = notice + field('First name', 'first') +
    `SPACER<p><label>Country <select id="country">${options}</select></label></p>` +
    (state.country ? field('Region', 'region') : '') + field('Last name', 'last');
  document.getElementById('actions').innerHTML = '<button id="submit">Submit</button>';
  for (const input of document.querySelectorAll('#app input')) {
    input.addEventListener('input', () => { state[input.dataset.key] = input.value; });
  }
  document.getElementById('country').addEventListener('change', (e) => {
    state.country = e.target.value;
    render();
  });
  document.getElementById('submit').addEventListener('click', submitForm);
}
// Rebuild every node of the form (same labels and values) under a new notice.
window.rerender = () => { state.restored = true; render(); };
addEventListener('message', (e) => {
  if (e.data && e.data.agree) {
    state.email = e.data.email;
    document.getElementById('confirmed').textContent = 'Email confirmed: ' + e.data.email;
  }
});
function submitForm() {
  const missing = ['first', 'last', 'country', 'region', 'email'].filter((k) => !state[k]);
  document.getElementById('result').textContent = missing.length
    ? 'Missing: ' + missing.join(', ')
    : `Registered: ${state.first} ${state.last}, ${state.region}, ${state.country}, ${state.email}`;
}
render();
</script></body></html>
""".replace("SPACER", SPACER)

EMAIL_FRAME = """<!doctype html><title>Email</title>
<label>Email <input id="email"></label>
<label><input type="checkbox" id="agree"> I agree</label>
<button onclick="parent.postMessage({email: document.getElementById('email').value,
  agree: document.getElementById('agree').checked}, '*')">Confirm email</button>
"""

PERSON = {"first": "Ada", "last": "Lovelace", "region": "Paris", "email": "ada@example.com"}


def page_of(prompt: str) -> str:
    """The current page's part of a prompt (URL line and snapshot)."""
    return prompt[prompt.rindex("\nURL: ") :]


def find(snapshot: str, pattern: str) -> tuple[int, str] | None:
    """(id, rest of the line) of the first snapshot line whose text matches ``pattern``."""
    for line in snapshot.splitlines():
        match = re.match(r"\s*(\d+): (.*)", line)
        if match and re.search(pattern, match.group(2)):
            return int(match.group(1)), match.group(2)
    return None


def textbox(snapshot: str, name: str) -> tuple[int, str] | None:
    """(id, value) of the textbox called ``name``."""
    found = find(snapshot, f'^textbox "{name}"')
    if found is None:
        return None
    value = re.search(r'value="([^"]*)"', found[1])
    return found[0], value.group(1) if value else ""


def signup_policy(messages: list[Message]) -> str:
    """Fill the sign-up form one reasonable step at a time, from the prompt alone."""
    snapshot = page_of(messages[-1]["content"])
    result = find(snapshot, r'^text "Registered: ')
    if result is not None:
        return f'done "{result[1][len("text ") + 1 : -1]}"'
    first, last = textbox(snapshot, "First name"), textbox(snapshot, "Last name")
    assert first is not None and last is not None, snapshot
    country = find(snapshot, r'^combobox "Country"')
    assert country is not None, snapshot
    if not first[1] or 'value="France"' not in country[1]:
        # Three actions; choosing the country inserts Region before Last name,
        # so the third must be skipped (its id no longer names Last name).
        return (
            f'fill {first[0]} "{PERSON["first"]}"\n'
            f'select {country[0]} "France"\n'
            f'fill {last[0]} "{PERSON["last"]}"'
        )
    region = textbox(snapshot, "Region")
    assert region is not None, snapshot
    if not region[1] or not last[1]:
        return f'fill {region[0]} "{PERSON["region"]}"\nfill {last[0]} "{PERSON["last"]}"'
    if find(snapshot, r'^text "Email confirmed') is None:
        email = textbox(snapshot, "Email")
        agree = find(snapshot, r'^checkbox "I agree"')
        confirm = find(snapshot, r'^button "Confirm email"')
        if email is None or agree is None or confirm is None:
            return "wait 200"  # the iframe is still loading
        lines = [] if email[1] else [f'fill {email[0]} "{PERSON["email"]}"']
        if " checked" not in agree[1]:
            lines.append(f"check {agree[0]}")
        lines.append(f"click {confirm[0]}")
        return "\n".join(lines)
    submit = find(snapshot, r'^button "Submit"')
    assert submit is not None, snapshot
    return f"Everything is filled in, so I submit.\n```\nclick {submit[0]}\n```"
