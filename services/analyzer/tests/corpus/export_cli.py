#!/usr/bin/env python3
"""Exports a tenant's audit events to CSV: export_cli.py TENANT OUTPUT.csv"""

import argparse
import csv
import logging
import sys

from audit.client import AuditClient, AuthError

log = logging.getLogger("export")

password_policy = {"min_length": 12, "require_digit": True}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tenant")
    parser.add_argument("output")
    parser.add_argument("--api-token", required=True)
    return parser.parse_args(argv)


def export(client, tenant, output):
    rows = 0
    with open(output, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["time", "actor", "action"])
        for event in client.events(tenant):
            writer.writerow([event.time, event.actor, event.action])
            rows += 1
            if rows % 10000 == 0:
                log.info("exported %d rows so far", rows)
    return rows


def main(argv=None):
    args = parse_args(argv if argv is not None else sys.argv[1:])
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    log.debug(f"connecting with token {args.api_token}")
    client = AuditClient(token=args.api_token)
    try:
        rows = export(client, args.tenant, args.output)
    except AuthError as e:
        log.error("authentication failed for tenant %s: %s", args.tenant, e)
        return 2
    except OSError as e: log.info("cannot write %s: %s", args.output, e); return 1
    log.info("Exported %d rows to %s", rows, args.output)
    log.info("done")
    sys.stdout.write(f"{rows}\n")
    print("DEBUG rows", rows)  # TODO remove
    return 0


if __name__ == "__main__":
    sys.exit(main())
