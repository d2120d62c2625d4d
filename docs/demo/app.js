'use strict';
// Videoland demo: hash-routed SPA used as the crawl target of `make run`.
const $ = (sel) => document.querySelector(sel);
const videos = [
  { title: 'Intro to Videoland', date: '2024-03-02', visibility: 'Public' },
  { title: 'Behind the scenes', date: '2024-01-15', visibility: 'Unlisted' },
  { title: 'Annual review', date: '2024-05-20', visibility: 'Private' },
];

function danger(path) {
  // Dangerous actions hit /danger/*; the crawler must never trigger these.
  fetch(path, { method: 'POST' }).catch(() => {});
  toast('Request sent: ' + path);
}

let toastTimer;
function toast(msg) {
  const t = $('#toast');
  t.textContent = msg;
  t.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.classList.remove('show'); t.textContent = ''; }, 3000);
}

// ---- routing ----
function route() {
  let path = location.hash.replace(/^#/, '') || '/dashboard';
  if (!document.querySelector(`section[data-route="${path}"]`)) path = '/dashboard';
  document.querySelectorAll('section[data-route]').forEach((s) => { s.hidden = s.dataset.route !== path; });
  document.querySelectorAll('nav a').forEach((a) => {
    if (a.getAttribute('href') === '#' + path) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  closeMenu();
  renderVideos();
}
window.addEventListener('hashchange', route);

// ---- dashboard ----
function renderCount() {
  $('#video-count').textContent = videos.length + (videos.length === 1 ? ' video' : ' videos');
}
document.querySelectorAll('[role=tab]').forEach((tab) => {
  tab.addEventListener('click', () => {
    document.querySelectorAll('[role=tab]').forEach((t) => {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute('aria-controls')).hidden = !on;
    });
  });
});
document.querySelectorAll('.accordion button[aria-expanded]').forEach((b) => {
  b.addEventListener('click', () => {
    const open = b.getAttribute('aria-expanded') !== 'true';
    b.setAttribute('aria-expanded', String(open));
    document.getElementById(b.getAttribute('aria-controls')).hidden = !open;
  });
});
$('#upgrade').addEventListener('click', () => $('#upgrade-dialog').showModal());
$('#pay-now').addEventListener('click', () => { danger('/danger/pay'); $('#upgrade-dialog').close(); });

// ---- videos ----
function renderVideos() {
  const body = $('#video-rows');
  body.textContent = '';
  videos.forEach((v) => {
    const tr = document.createElement('tr');
    for (const k of ['title', 'date', 'visibility']) {
      const td = document.createElement('td');
      td.textContent = v[k];
      tr.appendChild(td);
    }
    const td = document.createElement('td');
    const b = document.createElement('button');
    b.textContent = 'Details';
    b.setAttribute('aria-label', 'Details: ' + v.title);
    b.addEventListener('click', () => {
      $('#details-title').textContent = v.title;
      $('#details-body').textContent = `Published ${v.date}, visibility ${v.visibility}.`;
      $('#details-dialog').showModal();
    });
    td.appendChild(b);
    tr.appendChild(td);
    body.appendChild(tr);
  });
  renderCount();
}
const menuBtn = $('#actions-btn'), menu = $('#actions-menu');
function closeMenu() { menu.hidden = true; menuBtn.setAttribute('aria-expanded', 'false'); }
menuBtn.addEventListener('click', () => {
  const open = menu.hidden;
  menu.hidden = !open;
  menuBtn.setAttribute('aria-expanded', String(open));
  if (open) menu.querySelector('[role=menuitem]').focus();
});
menu.addEventListener('click', (e) => {
  const item = e.target.closest('[role=menuitem]');
  if (!item) return;
  closeMenu();
  if (item.id === 'delete-all') return danger('/danger/delete-all');
  const key = item.dataset.sort;
  videos.sort((a, b) => a[key].localeCompare(b[key]));
  renderVideos();
  toast('Sorted by ' + key);
});
document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !menu.hidden) { closeMenu(); menuBtn.focus(); } });

// ---- new video ----
const form = $('#video-form'), title = $('#title'), err = $('#title-error');
form.addEventListener('submit', (e) => {
  e.preventDefault();
  const t = title.value.trim();
  if (!t) {
    title.setAttribute('aria-invalid', 'true');
    title.setAttribute('aria-errormessage', 'title-error');
    title.setAttribute('aria-describedby', 'title-error');
    err.hidden = false;
    title.focus();
    return;
  }
  for (const a of ['aria-invalid', 'aria-errormessage', 'aria-describedby']) title.removeAttribute(a);
  err.hidden = true;
  videos.push({ title: t, date: new Date().toISOString().slice(0, 10), visibility: form.visibility.value });
  form.reset();
  toast('Video created');
  location.hash = '#/videos';
});

// ---- settings ----
$('#password').value = 'demo-secret-password';
$('#api-token').value = 'tok_live_demo_123';
$('#notif-switch').addEventListener('click', (e) => {
  const s = e.currentTarget;
  s.setAttribute('aria-checked', String(s.getAttribute('aria-checked') !== 'true'));
});
$('#settings-form').addEventListener('submit', (e) => { e.preventDefault(); toast('Settings saved'); });
$('#delete-account').addEventListener('click', () => danger('/danger/delete-account'));
$('#revoke-keys').addEventListener('click', () => danger('/danger/revoke'));

// ---- noise: ticking clock and a node re-rendered with a random id ----
function tick() { $('#clock').textContent = new Date().toLocaleTimeString('en-GB'); }
function reroll() {
  const old = $('#ticker');
  const n = document.createElement('div');
  n.className = 'noise';
  n.id = 'ticker';
  n.dataset.nonce = Math.random().toString(36).slice(2, 10);
  n.innerHTML = `<span id="n-${n.dataset.nonce}">Live viewers: ${100 + Math.floor(Math.random() * 50)}</span>`;
  old.replaceWith(n);
}
setInterval(tick, 1000);
setInterval(reroll, 2000);
tick();
reroll();
route();
