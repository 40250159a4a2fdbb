# Shared by the scripts that need the machine's Debian mirror (offline-images.sh,
# install-compose.sh): read it from the machine's own apt sources at run time, so no host
# name is ever written in the repo. Source it; it defines read_mirror and uses $APT_SOURCES.

# First URI of a deb822 stanza whose Suites has a plain codename (not -security/-updates);
# falls back to the legacy one-line format.
read_mirror() {
    local uri=""
    if [ -r "$APT_SOURCES" ]; then
        uri="$(awk 'BEGIN { RS = "" }
            {
                uris = ""; suites = ""
                n = split($0, lines, "\n")
                for (i = 1; i <= n; i++) {
                    if (lines[i] ~ /^URIs:/)   { uris = lines[i];   sub(/^URIs:[ \t]*/, "", uris) }
                    if (lines[i] ~ /^Suites:/) { suites = lines[i]; sub(/^Suites:[ \t]*/, "", suites) }
                }
                if (uris == "") next
                m = split(suites, s, /[ \t]+/)
                for (j = 1; j <= m; j++) if (s[j] != "" && s[j] !~ /-/) { split(uris, u, /[ \t]+/); print u[1]; exit }
            }' "$APT_SOURCES")"
    fi
    if [ -z "$uri" ] && [ -r /etc/apt/sources.list ]; then
        uri="$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { if ($(i+1) !~ /-/) { print $i; exit } else break } }' /etc/apt/sources.list)"
    fi
    printf '%s\n' "${uri%/}"
}
