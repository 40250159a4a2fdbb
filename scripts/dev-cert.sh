#!/usr/bin/env bash
# dev-cert.sh — the development certificate: a local CA and, signed by it, one certificate
# for localhost, *.localhost, the estate's host names and 127.0.0.1 / ::1, with Debian's
# openssl. Written under a git-ignored directory; the ingress serves cert.pem and key.pem,
# a client trusts ca.pem:
#
#   curl --cacert dev-cert/ca.pem https://api.localhost:8443/actuator/health
#
# A CA that exists is kept (whatever trusts it keeps trusting it); the certificate is made
# when missing, or again with --renew. Never for production: the key files are readable by
# every user, so a container's unprivileged user can read them through a read-only mount.
set -euo pipefail
cd "$(dirname "$0")/.."

DEV_CERT_DIR="${DEV_CERT_DIR:-dev-cert}"
DEV_CERT_DAYS="${DEV_CERT_DAYS:-397}"
DEV_CA_DAYS="${DEV_CA_DAYS:-3650}"
# curl and browsers do not match a wildcard directly under `localhost`, so each estate host
# name is listed as well.
NAMES="localhost *.localhost api.localhost analyzer.localhost ai.localhost mcp.localhost"
ADDRESSES="127.0.0.1 ::1"
RENEW=0

usage() {
    cat <<EOF
Usage: $0 [--renew] [--help]

Makes, when missing, in \$DEV_CERT_DIR:
  ca.pem, ca.key      a local CA (kept once made; clients trust ca.pem)
  cert.pem, key.pem   a certificate for: $NAMES $ADDRESSES
                      (made again with --renew, signed by the same CA)

Environment (defaults in brackets):
  DEV_CERT_DIR   [$DEV_CERT_DIR]   relative to the repository root unless absolute
  DEV_CERT_DAYS  [$DEV_CERT_DAYS]  the certificate's lifetime
  DEV_CA_DAYS    [$DEV_CA_DAYS]    the CA's lifetime
EOF
}

for argument in "$@"; do
    case "$argument" in
        --renew) RENEW=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "unknown argument: $argument" >&2; usage >&2; exit 64 ;;
    esac
done

command -v openssl >/dev/null || { echo "dev-cert.sh: openssl is required (apt-get install openssl)" >&2; exit 1; }
mkdir -p "$DEV_CERT_DIR"
dir=$(cd "$DEV_CERT_DIR" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -s "$dir/ca.pem" ] || [ ! -s "$dir/ca.key" ]; then
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$work/ca.key" -out "$work/ca.pem" -days "$DEV_CA_DAYS" \
        -subj "/O=estate development/CN=estate development CA" \
        -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    mv "$work/ca.key" "$dir/ca.key"
    mv "$work/ca.pem" "$dir/ca.pem"
    chmod 600 "$dir/ca.key"
    echo "dev-cert.sh: made the CA $dir/ca.pem" >&2
    RENEW=1
fi

if [ "$RENEW" = 1 ] || [ ! -s "$dir/cert.pem" ] || [ ! -s "$dir/key.pem" ]; then
    alt=""
    for name in $NAMES; do alt="${alt:+$alt,}DNS:$name"; done
    for address in $ADDRESSES; do alt="$alt,IP:$address"; done
    cat >"$work/leaf.ext" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=$alt
EOF
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$work/key.pem" -out "$work/leaf.csr" \
        -subj "/O=estate development/CN=localhost" 2>/dev/null
    openssl x509 -req -in "$work/leaf.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
        -CAcreateserial -CAserial "$work/ca.srl" -days "$DEV_CERT_DAYS" \
        -extfile "$work/leaf.ext" -out "$work/cert.pem" 2>/dev/null
    chmod 644 "$work/key.pem" "$work/cert.pem"
    # The key first, then the certificate: a reload that reads between the two renames sees
    # a mismatch, which it refuses and retries, never a certificate without its key.
    mv "$work/key.pem" "$dir/key.pem"
    mv "$work/cert.pem" "$dir/cert.pem"
    echo "dev-cert.sh: made $dir/cert.pem for $NAMES $ADDRESSES" >&2
fi
