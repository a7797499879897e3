// Posts the registration form as JSON and says what happened (the form also works without this script).
const MESSAGES = {
  fillAllFields: 'Fill in every field.',
  invalidAddress: 'The address is not a valid mail address.',
  passwordDoesNotMatch: 'The two passwords differ.',
  weakPassword: 'The password is too weak: at least 10 characters, two kinds of characters, not the address.',
  invalidPassword: 'The password is too long or holds control characters.',
  registrationClosed: 'The administrator already exists.',
};

const form = document.getElementById('register');
const result = document.getElementById('result');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = Object.fromEntries(new FormData(form));
  try {
    const res = await fetch(form.action, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await res.json();
    if (res.ok) {
      result.textContent = `Administrator ${answer.username} created. Log in with this address and password.`;
      form.querySelectorAll('input, button').forEach((el) => { el.disabled = true; });
    } else {
      result.textContent = MESSAGES[answer.message] ?? `Refused: ${answer.message}`;
    }
  } catch (err) {
    result.textContent = `The service did not answer: ${err.message}`;
  }
});
