// Posts the registration form as JSON and says what happened (the form also works without this script).
import { MESSAGES, h } from './common.js';

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
  result.textContent = 'Creating the administrator…';
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
      result.textContent = `Administrator ${answer.username} created.`;
      form.querySelectorAll('input, button').forEach((el) => { el.disabled = true; });
      // The service now asks for a login: the note about anonymous processing no longer holds.
      document.getElementById('next').replaceChildren(
        'Done: this service now asks for a login. ',
        h('a', { href: '/admin', id: 'next-admin' }, 'Log in to the administration'),
        ' to create the other accounts, or ',
        h('a', { href: '/process', id: 'next-process' }, 'process log files'),
        ' (log in there with this address and password).',
      );
    } else {
      result.textContent = MESSAGES[answer.message] ?? `Refused: ${answer.message}`;
    }
  } catch (err) {
    result.textContent = `The service did not answer: ${err.message}`;
  } finally {
    form.removeAttribute('aria-busy');
    if (!created) button.disabled = false;
  }
});
