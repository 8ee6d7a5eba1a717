"""Pictures of models: matplotlib drawings (no pyplot state), Graphviz DOT, Mermaid and the
interactive HTML explorer.
"""
