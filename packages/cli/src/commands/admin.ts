/**
 * `vesta admin …`: operator commands run on the server's host, against its database: the one
 * VESTA_DATABASE_URL names (PostgreSQL), else the SQLite file in its data directory.
 * `create-key --user NAME` prints only the new key on stdout (creating the user if needed);
 * `revoke-key PREFIX` revokes the key with that display prefix;
 * `add-model --id ID --name N [--description D]` adds (or updates) a model Bench runs can evaluate;
 * `create-user`, `reset-password` and `disable-user` manage dashboard accounts (for recovery: a
 * lost admin password, or a user to lock out at once). A password is read from stdin with
 * `--password-stdin`, or generated and printed once on stdout.
 */
import type { Command } from 'commander';
import {
  ConfigError,
  addModel,
  createApiKey,
  createUser,
  disableUser,
  generatePassword,
  loadConfig,
  resetPassword,
  revokeApiKey,
} from '@vesta/server';
import { processHost } from './host.js';
import type { CommandHost } from './host.js';
import type { DatabaseTarget } from '@vesta/server';

function dataDirFor(host: CommandHost, option: string | undefined): DatabaseTarget | null {
  try {
    const config = loadConfig(
      option === undefined ? host.io.env : { ...host.io.env, VESTA_DATA_DIR: option },
    );
    return { dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 1 };
  } catch (e) {
    if (e instanceof ConfigError) {
      host.io.stderr.write(`vesta admin: ${e.message}\n`);
      host.exitCode = 78;
      return null;
    }
    throw e;
  }
}

/** The password from stdin (first line) or a generated one that must be printed. */
async function passwordFrom(
  host: CommandHost,
  fromStdin: boolean | undefined,
): Promise<{ password: string; generated: boolean }> {
  if (!fromStdin) return { password: generatePassword(), generated: true };
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  void host;
  return { password: Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '', generated: false };
}

async function operatorStep(host: CommandHost, command: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    host.io.stderr.write(`vesta admin ${command}: ${e.message}\n`);
    host.exitCode = 2;
  }
}

export function registerAdminCommands(program: Command, host: CommandHost = processHost()): void {
  const admin = program
    .command('admin')
    .description(
      "Operator commands, run on the server's host (they open its database: VESTA_DATABASE_URL, else the data directory's file)",
    );

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

  admin
    .command('create-user')
    .description(
      'Create a dashboard account (the first admin closes first-run setup); prints a generated password once',
    )
    .requiredOption('--email <email>', 'sign-in email')
    .option('--admin', 'make the account an admin', false)
    .option(
      '--name <name>',
      'user name; an existing key-only user of this name (from create-key) gets the email and password',
    )
    .option('--password-stdin', 'read the password from the first line of stdin instead of generating one')
    .option('--data-dir <dir>', 'data directory of the service (env VESTA_DATA_DIR, default ./.vesta)')
    .addHelpText(
      'after',
      '\nExample (recovery when nobody can sign in):\n  $ vesta admin create-user --email ops@example.com --admin\n',
    )
    .action(
      async (opts: {
        email: string;
        admin: boolean;
        name?: string;
        passwordStdin?: boolean;
        dataDir?: string;
      }) => {
        const dataDir = dataDirFor(host, opts.dataDir);
        if (dataDir === null) return;
        await operatorStep(host, 'create-user', async () => {
          const { password, generated } = await passwordFrom(host, opts.passwordStdin);
          const user = await createUser(dataDir, {
            email: opts.email,
            password,
            role: opts.admin ? 'admin' : 'user',
            ...(opts.name === undefined ? {} : { name: opts.name }),
          });
          if (generated) host.io.stdout.write(`${password}\n`);
          host.io.stderr.write(
            `created ${user.role} ${user.email ?? ''} (user ${user.name})${generated ? '; the password above is shown once' : ''}\n`,
          );
        });
      },
    );

  admin
    .command('reset-password')
    .description(
      'Set a new password for an account and sign all its sessions out; prints a generated password once',
    )
    .requiredOption('--email <email>', 'sign-in email of the account')
    .option('--password-stdin', 'read the password from the first line of stdin instead of generating one')
    .option('--data-dir <dir>', 'data directory of the service (env VESTA_DATA_DIR, default ./.vesta)')
    .action(async (opts: { email: string; passwordStdin?: boolean; dataDir?: string }) => {
      const dataDir = dataDirFor(host, opts.dataDir);
      if (dataDir === null) return;
      await operatorStep(host, 'reset-password', async () => {
        const { password, generated } = await passwordFrom(host, opts.passwordStdin);
        await resetPassword(dataDir, opts.email, password);
        if (generated) host.io.stdout.write(`${password}\n`);
        host.io.stderr.write(`password reset for ${opts.email}; its sessions are signed out\n`);
      });
    });

  admin
    .command('disable-user')
    .description('Disable a user: no sign-in; every dashboard session and API key of theirs is revoked')
    .option('--email <email>', 'sign-in email of the account')
    .option('--user <name>', 'user name (for key-only users made by create-key)')
    .option('--data-dir <dir>', 'data directory of the service (env VESTA_DATA_DIR, default ./.vesta)')
    .action(async (opts: { email?: string; user?: string; dataDir?: string }) => {
      if ((opts.email === undefined) === (opts.user === undefined)) {
        host.io.stderr.write('vesta admin disable-user: give exactly one of --email or --user\n');
        host.exitCode = 2;
        return;
      }
      const dataDir = dataDirFor(host, opts.dataDir);
      if (dataDir === null) return;
      await operatorStep(host, 'disable-user', async () => {
        const user = await disableUser(dataDir, {
          ...(opts.email === undefined ? {} : { email: opts.email }),
          ...(opts.user === undefined ? {} : { name: opts.user }),
        });
        host.io.stderr.write(`disabled user ${user.name}: sessions and keys revoked\n`);
      });
    });
}
