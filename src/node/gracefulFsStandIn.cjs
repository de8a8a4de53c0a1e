// Stands in for graceful-fs in dist/dispatch.js (esbuild.mjs maps it here). proper-lockfile loads
// graceful-fs only as its default file system, and loading graceful-fs clones the whole `fs` module,
// which wakes every lazy part of it: on the dispatch hook's path that costs more than the decision
// itself. Node's own `fs` has every call proper-lockfile makes; the retry on EMFILE that graceful-fs
// adds does not matter to one short-lived hook.
'use strict';
module.exports = require('node:fs');
