import { register } from 'node:module';
register('./count-hooks.mjs', import.meta.url);
