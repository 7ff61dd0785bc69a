#!/usr/bin/env node
// The `vesta` executable. It lives outside dist/ so that `npm ci` can link it before the build
// (npm links a workspace's bins before the root `prepare` script compiles the packages).
import '../dist/bin.js';
