/*
 * node_agent.h — `kubesim --node-agent` (node_agent.c): kubesim's kubelet as one node of any API
 * server. Called by kubesim's main with argv[0] = "--node-agent"; returns the process exit status.
 */
#ifndef KS_NODE_AGENT_H
#define KS_NODE_AGENT_H

int ks_node_agent_main(int argc, char **argv);

#endif
