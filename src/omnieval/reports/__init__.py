"""omnieval.reports"""
