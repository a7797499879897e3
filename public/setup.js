// Posts the registration form as JSON and says what happened (the form also works without this script).
import { h, messageOfCode, setText, setupLanguageSwitch, tr } from './common.js';

setupLanguageSwitch();

const form = document.getElementById('register');
const result = document.getElementById('result');
const button = form.querySelector('button[type="submit"]');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (button.disabled) return;
  const body = Object.fromEntries(new FormData(form));
  // argon2 takes about a second: say so, and no second submission meanwhile
  button.disabled = true;
  form.setAttribute('aria-busy', 'true');
  setText(result, tr('setup.creating'));
  let created = false;
  try {
    const res = await fetch(form.action, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await res.json();
    if (res.ok) {
      created = true;
      setText(result, tr('setup.created', { user: answer.username }));
      form.querySelectorAll('input, button').forEach((el) => { el.disabled = true; });
      // The service now asks for a login: the note about anonymous processing no longer holds.
      document.getElementById('next').replaceChildren(...h('span', {},
        tr('setup.done1'),
        h('a', { href: '/admin', id: 'next-admin' }, tr('setup.done2')),
        tr('setup.done3'),
        h('a', { href: '/process', id: 'next-process' }, tr('setup.done4')),
        tr('setup.done5'),
      ).childNodes);
    } else {
      setText(result, messageOfCode(answer.message) ?? tr('setup.refused', { code: String(answer.message) }));
    }
  } catch (err) {
    setText(result, tr('setup.noAnswer', { error: err.message }));
  } finally {
    form.removeAttribute('aria-busy');
    if (!created) button.disabled = false;
  }
});
