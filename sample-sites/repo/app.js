// app.js - the browser's one script, loaded with the page's CSP nonce.
document.documentElement.className = "js";
