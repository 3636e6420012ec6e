#!/usr/bin/env bash
# Deploys a kustomization with its migrations first, with plain kubectl:
#   k8s/deploy.sh k8s/overlays/prod            # the whole mesh (namespace from the overlay)
#   k8s/deploy.sh k8s/services/crm lim-prod    # one service, by its team
# 1. everything but the Deployments (config, accounts, services, policies, autoscalers, and the
#    migration Jobs, deleted first because a Job's pod template cannot change);
# 2. waits for every migration Job to complete (one that fails stops the deploy: the running
#    release keeps serving on the schema it is compatible with);
# 3. the Deployments, then waits for their rollouts.
# Argo CD does the same through the Jobs' PreSync hook annotations (docs/deployment.md).
set -euo pipefail
dir=${1:?usage: k8s/deploy.sh <kustomization dir> [namespace]}
rendered=$(kubectl kustomize "$dir")
namespace=${2:-$(printf '%s\n' "$rendered" | sed -n 's/^  namespace: //p' | head -n 1)}
namespace=${namespace:-$(kubectl config view --minify -o jsonpath='{..namespace}')}
namespace=${namespace:-default}
migrations='app.kubernetes.io/component=migration,app.kubernetes.io/part-of=lim'
k() { kubectl -n "$namespace" "$@"; }

k delete job -l "$migrations" --ignore-not-found --wait=true
k apply -k "$dir" -l 'app.kubernetes.io/component!=server'
k wait --for=condition=complete job -l "$migrations" --timeout="${MIGRATE_TIMEOUT:-15m}"
k apply -k "$dir"
for deployment in $(printf '%s\n' "$rendered" | awk '/^kind: Deployment$/ { d = 1 } d && /^  name: / { print $2; d = 0 }'); do
  k rollout status "deployment/$deployment" --timeout="${ROLLOUT_TIMEOUT:-10m}"
done
