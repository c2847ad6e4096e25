"""omnieval.cli"""
