export const usage = `Usage: wallet <command> [options]

Commands:
  serve     Run the server. Migrates and seeds the config at start.
              --config <file>   config file (or WALLET_CONFIG); none: create/reuse the demo in ./data/demo
              --db <url>        sqlite:<path> or postgres://... (or WALLET_DATABASE_URL; default
                                sqlite:./data/wallet.db, or the demo's sqlite:<data dir>/wallet.db)
              --port <n>        (or PORT; default 8080; 0 = any free port)
              --host <addr>     (default 127.0.0.1)
              --data-dir <dir>  demo directory, or where a sandbox keeps its generated PII key
                                (default ./data/demo without --config, ./data with one)
              --no-scheduler    run no periodic job and no webhook delivery in this process
                                (drive them with POST /api/v1/admin/jobs/{job}/run)
              --no-reference    do not serve the interactive API reference at GET /docs
  migrate   Run the database migrations and exit (--db, --config, --data-dir as for serve).
  keygen    Create an Ed25519 key pair: prints the public key PEM, writes the private key (0600).
              --kid <kid> (default k<YYYYMMDD>)  --out <file> (default <kid>.private.pem)
  call      Sign and send a tenant request: wallet call GET|POST|PATCH PATH ['<json>' | @file]
              PATH with or without /api/v1/tenant. Uses ./data/demo/credentials.json unless given
              --credentials <file> | --data-dir <dir> | --base-url --api-key --kid --key-file <pem>
              --idempotency-key <key> (generated for writes)  --request-id <id>  --timeout-ms <n>
  admin     Send an operator API request with WALLET_ADMIN_TOKEN:
            wallet admin GET|POST|PATCH|PUT PATH ['<json>' | @file]
              PATH with or without /api/v1/admin; --base-url (default: the demo's, else 127.0.0.1:$PORT)
              --data-dir <dir> (where the demo's credentials are)  --request-id <id>
  demo      A scripted tour of the tenant API on a running server, printing each step: onboard, credit,
            quote, mandate, debit, payout + sandbox result, top-up + sandbox payment, statement, receipt.
              Credentials as for call. The operator steps use WALLET_ADMIN_TOKEN (or --admin-token);
              without it they are skipped. --tenant <id> (demo) --rail <code> (sandbox_mobile)
              --beneficiary <code> (POWERCO) --currency <code> (KES). Exit 1 at the first failure.
  help      Show this text.

Environment: WALLET_CONFIG, WALLET_DATABASE_URL, PORT, WALLET_ADMIN_TOKEN (enables /api/v1/admin),
WALLET_PII_KEY (32 bytes base64; required outside sandbox; "new,old" while rotating), LOG_LEVEL.
`;
