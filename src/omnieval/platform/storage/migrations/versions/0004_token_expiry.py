"""sessions and tokens: every credential expires, web sessions are rows (ended by logout) like API tokens"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("kind", sa.String(length=8), server_default="api", nullable=False))
        batch_op.add_column(sa.Column("expires_at", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_column("expires_at")
        batch_op.drop_column("kind")
