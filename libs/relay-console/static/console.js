'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  // The page is served at <prefix>/operator; the API is under <prefix>/operator/api.
  const api = location.pathname.replace(/\/?$/, '') + '/api/';
  let token = sessionStorage.getItem('relay-console-token') || '';

  function say(text) {
    $('message').textContent = text;
  }

  async function call(method, path, body) {
    const headers = { authorization: 'Bearer ' + token };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(api + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await response.json().catch(() => null);
    if (response.status === 401) {
      signOut('Token refused: log in again.');
      throw new Error('401');
    }
    if (!response.ok)
      throw new Error(
        (data && data.message && JSON.stringify(data.message)) || response.statusText,
      );
    return data;
  }

  function signOut(text) {
    token = '';
    sessionStorage.removeItem('relay-console-token');
    $('console').hidden = true;
    $('login').hidden = false;
    say(text || '');
  }

  function age(ms) {
    if (ms === null || ms === undefined) return '-';
    return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
  }

  function cell(row, text) {
    const td = document.createElement('td');
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function button(td, label, action) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.addEventListener('click', action);
    td.appendChild(b);
  }

  async function act(label, method, path, body) {
    try {
      const result = await call(method, path, body);
      say(label + ': ' + (result && result.outcome ? result.outcome : 'done'));
      await load();
    } catch (error) {
      if (error.message !== '401') say(label + ' failed: ' + error.message);
    }
  }

  function reason() {
    return $('reason').value;
  }

  async function load() {
    const [state, parked] = await Promise.all([call('GET', 'state'), call('GET', 'parked')]);
    $('login').hidden = true;
    $('console').hidden = false;
    $('operator').textContent = state.operator;
    $('relay-id').textContent = state.relayId;
    $('table').textContent = state.table;
    $('running').textContent = state.paused ? 'paused' : state.running ? 'running' : 'stopped';
    $('pending').textContent = state.backlog ? String(state.backlog.pending) : '-';
    $('parked-count').textContent = state.backlog ? String(state.backlog.parked) : '-';
    $('oldest').textContent = age(state.backlog && state.backlog.oldestAgeMs);
    $('pressure').textContent = state.pressure ? state.pressure.state : 'unknown';
    const f = state.figures;
    $('figures-age').textContent =
      f && f.ageSeconds !== null ? f.ageSeconds + ' s' + (f.stale ? ' (stale)' : '') : '-';
    const body = $('parked');
    body.replaceChildren();
    for (const e of parked) {
      const row = document.createElement('tr');
      row.dataset.eventId = e.eventId;
      cell(row, e.eventId);
      cell(row, e.eventType);
      cell(row, e.aggregateType + '/' + e.aggregateId);
      cell(row, e.aggregateVersion);
      cell(row, String(e.attempts));
      cell(row, e.parkedReason || '');
      cell(row, String(e.waiting));
      const actions = cell(row, '');
      const id = encodeURIComponent(e.eventId);
      button(actions, 'Retry', () =>
        act('Retry', 'POST', 'events/' + id + '/retry', { reason: reason() }),
      );
      button(actions, 'Skip', () =>
        act('Skip', 'POST', 'events/' + id + '/skip', { reason: reason() }),
      );
      body.appendChild(row);
    }
    if (parked.length === 0) {
      const row = document.createElement('tr');
      cell(row, 'No parked events').colSpan = 8;
      body.appendChild(row);
    }
  }

  $('login').addEventListener('submit', async (event) => {
    event.preventDefault();
    token = $('token').value.trim();
    $('token').value = '';
    try {
      await load();
      sessionStorage.setItem('relay-console-token', token);
      say('');
    } catch (error) {
      if (error.message !== '401') say('Could not load: ' + error.message);
    }
  });
  $('logout').addEventListener('click', () => signOut('Logged out.'));
  $('refresh').addEventListener('click', () => load().catch((e) => say(e.message)));
  $('pause').addEventListener('click', () =>
    act('Pause', 'POST', 'relay/pause', { reason: reason() }),
  );
  $('resume').addEventListener('click', () =>
    act('Resume', 'POST', 'relay/resume', { reason: reason() }),
  );
  if (token) load().catch(() => signOut(''));
})();
