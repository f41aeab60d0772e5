/**
 * The operator console's page: static, no data in it (everything is fetched with the
 * operator's token by `console-page.script.ts`), so it is served without credentials.
 * @internal
 */
export const CONSOLE_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>nest-outbox relay console</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 1.5rem; color: #222; }
table { border-collapse: collapse; margin-top: .5rem; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; }
.figures span { display: inline-block; margin-right: 1.5rem; }
#message { color: #a00; min-height: 1.2em; }
[hidden] { display: none; }
</style>
</head>
<body>
<h1>Relay console</h1>
<form id="login">
  <label>Operator token <input id="token" type="password" autocomplete="off" required></label>
  <button type="submit" id="login-button">Log in</button>
</form>
<p id="message" role="status"></p>
<main id="console" hidden>
  <p>Signed in as <b id="operator"></b> on relay <b id="relay-id"></b> (<span id="table"></span>)
    <button type="button" id="logout">Log out</button></p>
  <div class="figures">
    <span>Relay: <b id="running"></b></span>
    <span>Pending: <b id="pending"></b></span>
    <span>Parked: <b id="parked-count"></b></span>
    <span>Oldest unpublished: <b id="oldest"></b></span>
    <span>Pressure: <b id="pressure"></b></span>
  </div>
  <p><label>Reason <input id="reason" size="50" maxlength="500"></label>
    <button type="button" id="pause">Pause relay</button>
    <button type="button" id="resume">Resume relay</button>
    <button type="button" id="refresh">Refresh</button></p>
  <h2>Parked events</h2>
  <table>
    <thead><tr><th>Event id</th><th>Type</th><th>Aggregate</th><th>Version</th><th>Attempts</th>
      <th>Reason</th><th>Waiting behind</th><th>Actions</th></tr></thead>
    <tbody id="parked"></tbody>
  </table>
</main>
<script src="/operator/console.js"></script>
</body>
</html>
`;
