#!/usr/bin/env bash
# Deploys with the migrations first, with plain kubectl:
#   k8s/deploy.sh prod                  # the whole mesh: k8s/overlays/prod
#   k8s/deploy.sh crm prod              # one service, by its team: k8s/overlays/prod/services/crm
#   k8s/deploy.sh <kustomization dir> [namespace]
# The namespace is the kustomization's (lim-prod, lim-dev) unless given.
# 1. everything but the Deployments (accounts, services, policies, autoscalers, and the migration
#    Jobs of the services deployed, deleted first because a Job's pod template cannot change);
# 2. waits for those migration Jobs, selected by their service label, to complete (one that fails
#    stops the deploy: the running release keeps serving on the schema it is compatible with);
#    other teams' Jobs are neither deleted nor waited for;
# 3. the Deployments, then waits for their rollouts.
# Argo CD does the same through the Jobs' PreSync hook annotations (docs/deployment.md).
set -euo pipefail
usage='usage: k8s/deploy.sh <env> | <service> <env> | <kustomization dir> [namespace]'
here=$(cd "$(dirname "$0")" && pwd)
namespace=
if [ -d "${1:?$usage}" ]; then
  dir=$1
  namespace=${2:-}
  # A service's own kustomization has no environment's settings (image tag, resources, autoscaling
  # bounds, secrets): applied to an environment it would silently undo them.
  case "$(cd "$dir" && pwd)/" in
    "$here"/services/*)
      echo "deploy: $dir has no environment's settings; use k8s/deploy.sh $(basename "$dir") <env>" >&2
      exit 2 ;;
  esac
elif [ $# -eq 1 ]; then
  dir=$here/overlays/$1
elif [ $# -eq 2 ]; then
  dir=$here/overlays/$2/services/$1
else
  echo "$usage" >&2
  exit 2
fi
[ -f "$dir/kustomization.yaml" ] || { echo "deploy: no kustomization at $dir ($usage)" >&2; exit 2; }

rendered=$(kubectl kustomize "$dir")
namespace=${namespace:-$(printf '%s\n' "$rendered" | sed -n 's/^  namespace: //p' | head -n 1)}
namespace=${namespace:-$(kubectl config view --minify -o jsonpath='{..namespace}')}
namespace=${namespace:-default}
# The services whose migration Jobs this kustomization renders (a Job's metadata comes before its
# spec in kustomize's output, so its first service label is the Job's own).
services=$(printf '%s\n' "$rendered" | awk '
  /^---$/ { job = 0; seen = 0 }
  /^kind: Job$/ { job = 1 }
  job && !seen && /^    lim\.io\/service: / { print $2; seen = 1 }' | sort -u | paste -sd, -)
k() { kubectl -n "$namespace" "$@"; }

if [ -n "$services" ]; then
  migrations="app.kubernetes.io/component=migration,app.kubernetes.io/part-of=lim,lim.io/service in ($services)"
  k delete job -l "$migrations" --ignore-not-found --wait=true
fi
k apply -k "$dir" -l 'app.kubernetes.io/component!=server'
if [ -n "$services" ]; then
  k wait --for=condition=complete job -l "$migrations" --timeout="${MIGRATE_TIMEOUT:-15m}"
fi
k apply -k "$dir"
for deployment in $(printf '%s\n' "$rendered" | awk '/^kind: Deployment$/ { d = 1 } d && /^  name: / { print $2; d = 0 }'); do
  k rollout status "deployment/$deployment" --timeout="${ROLLOUT_TIMEOUT:-10m}"
done
