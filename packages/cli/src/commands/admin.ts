/**
 * `vesta admin …`: operator commands run on the server's host, against its data directory.
 * `create-key --user NAME` prints only the new key on stdout (creating the user if needed);
 * `revoke-key PREFIX` revokes the key with that display prefix;
 * `add-model --id ID --name N [--description D]` adds (or updates) a model Bench runs can evaluate.
 */
import type { Command } from 'commander';
import { ConfigError, addModel, createApiKey, loadConfig, revokeApiKey } from '@vesta/server';
import { processHost } from './host.js';
import type { CommandHost } from './host.js';

function dataDirFor(host: CommandHost, option: string | undefined): string | null {
  try {
    return loadConfig(option === undefined ? host.io.env : { ...host.io.env, VESTA_DATA_DIR: option })
      .dataDir;
  } catch (e) {
    if (e instanceof ConfigError) {
      host.io.stderr.write(`vesta admin: ${e.message}\n`);
      host.exitCode = 78;
      return null;
    }
    throw e;
  }
}

export function registerAdminCommands(program: Command, host: CommandHost = processHost()): void {
  const admin = program
    .command('admin')
    .description("Operator commands, run on the server's host (they open its data directory)");

  admin
    .command('create-key')
    .description('Create an API key for a user (created if needed); prints only the key')
    .requiredOption('--user <name>', 'user name (1-64 of letters, digits, . _ @ -)')
    .option('--data-dir <dir>', 'data directory of the service (env VESTA_DATA_DIR, default ./.vesta)')
    .addHelpText(
      'after',
      '\nThe key is shown once and stored only as a hash. Example:\n  $ export VESTA_API_KEY=$(vesta admin create-key --user alice)\n',
    )
    .action(async (opts: { user: string; dataDir?: string }) => {
      const dataDir = dataDirFor(host, opts.dataDir);
      if (dataDir === null) return;
      try {
        const created = await createApiKey(dataDir, opts.user);
        host.io.stdout.write(`${created.key}\n`);
        host.io.stderr.write(`created key ${created.prefix}… for user ${created.userName}\n`);
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        host.io.stderr.write(`vesta admin create-key: ${e.message}\n`);
        host.exitCode = 2;
      }
    });

  admin
    .command('revoke-key')
    .description('Revoke the API key with this display prefix (the first 12 characters, e.g. vsk_AbCdEfGh)')
    .argument('<prefix>', 'display prefix of the key')
    .option('--data-dir <dir>', 'data directory of the service (env VESTA_DATA_DIR, default ./.vesta)')
    .action(async (prefix: string, opts: { dataDir?: string }) => {
      const dataDir = dataDirFor(host, opts.dataDir);
      if (dataDir === null) return;
      const revoked = await revokeApiKey(dataDir, prefix);
      if (revoked) {
        host.io.stderr.write(`revoked key ${prefix}…\n`);
      } else {
        host.io.stderr.write(`vesta admin revoke-key: no active key with prefix ${prefix}\n`);
        host.exitCode = 1;
      }
    });

  admin
    .command('add-model')
    .description('Add a model that Bench runs can evaluate (or update its name and description)')
    .requiredOption('--id <id>', 'model id: letters, digits and . _ : / - (at most 128)')
    .requiredOption('--name <name>', 'display name')
    .option('--description <text>', 'what the model is', '')
    .option('--data-dir <dir>', 'data directory of the service (env VESTA_DATA_DIR, default ./.vesta)')
    .addHelpText(
      'after',
      "\nThese models are global (every user sees them); a model a user's runner declares is private to that user. Example:\n  $ vesta admin add-model --id my-model --name 'My model v2' --description 'In-house text-to-video, 512 px'\n",
    )
    .action(async (opts: { id: string; name: string; description: string; dataDir?: string }) => {
      const dataDir = dataDirFor(host, opts.dataDir);
      if (dataDir === null) return;
      try {
        const model = await addModel(dataDir, {
          id: opts.id,
          name: opts.name,
          description: opts.description,
        });
        host.io.stdout.write(`${model.id}\n`);
        host.io.stderr.write(`${model.created ? 'added' : 'updated'} model ${model.id} (${model.name})\n`);
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        host.io.stderr.write(`vesta admin add-model: ${e.message}\n`);
        host.exitCode = 2;
      }
    });
}
