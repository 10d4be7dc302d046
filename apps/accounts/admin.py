from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from apps.accounts.models import ApiToken, CardEvent, User


@admin.register(User)
class CogniVaultUserAdmin(UserAdmin):
    list_display = ("username", "first_name", "last_name", "is_staff", "last_login")
    list_filter = ("is_staff", "is_active")
    # When the card in use was printed; its key's hash is never shown (every card: Card events).
    fieldsets = (*UserAdmin.fieldsets, ("Login card", {"fields": ("card_printed_at",)}))
    readonly_fields = ("card_printed_at",)

    def get_deleted_objects(self, objs, request):
        """What deleting an account takes, as counts: Django's list would name each of the
        person's own documents, chats and study items, which are theirs alone even for the
        admin (docs/classroom.md#who-reaches-what)."""
        _, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        return [str(user) for user in objs], counts, perms_needed, protected


@admin.register(CardEvent)
class CardEventAdmin(admin.ModelAdmin):
    """Login cards printed, revoked and used: who, when, by whom, from where."""

    list_display = ("user", "kind", "at", "by", "address")
    list_select_related = ("user", "by")
    list_filter = ("kind",)
    search_fields = ("user__username",)
    readonly_fields = ("user", "kind", "at", "by", "address")

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at")
    readonly_fields = ("user", "prefix", "key_hash", "created_at", "last_used_at")

    def has_add_permission(self, request) -> bool:
        return False  # tokens are issued from the settings page, where the secret is shown once
