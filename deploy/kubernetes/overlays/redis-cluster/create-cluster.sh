#!/bin/sh
# Makes a Redis Cluster of the nodes in REDIS_NODES ("host:port host:port ..."), one replica per
# master, once; run again, it finds the cluster made and only introduces the nodes to each other
# at their current addresses (after every pod restarted with a new IP, that joins them again).
# The password comes from REDISCLI_AUTH, which redis-cli reads.
set -eu

ask() { # ask HOST:PORT COMMAND...: a command to one node
    node=$1
    shift
    redis-cli -h "${node%:*}" -p "${node##*:}" "$@"
}

addresses=""
for node in $REDIS_NODES; do
    until [ "$(ask "$node" ping 2>/dev/null)" = PONG ]; do
        echo "waiting for $node"
        sleep 2
    done
    # CLUSTER MEET and --cluster create take addresses, not names.
    ip=$(getent hosts "${node%:*}" | awk '{ print $1; exit }')
    [ -n "$ip" ] || { echo "cannot resolve $node" >&2; exit 1; }
    addresses="$addresses $ip:${node##*:}"
done

first=${REDIS_NODES%% *}
assigned=$(ask "$first" cluster info | tr -d '\r' | sed -n 's/^cluster_slots_assigned://p')
if [ "$assigned" = 16384 ]; then
    echo "the cluster exists: introducing its nodes at their current addresses"
    for address in $addresses; do
        ask "$first" cluster meet "${address%:*}" "${address##*:}" >/dev/null
    done
elif [ "$assigned" = 0 ]; then
    # shellcheck disable=SC2086 # one argument per address
    redis-cli --cluster create $addresses --cluster-replicas 1 --cluster-yes
else
    echo "$first holds $assigned slots of 16384: a cluster half made; see redis-cli --cluster fix" >&2
    exit 1
fi

until ask "$first" cluster info | grep -q '^cluster_state:ok'; do
    echo "waiting for cluster_state:ok"
    sleep 1
done
echo "cluster ready"
