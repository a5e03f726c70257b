/* The broadcast stage both overlays stand on (the table's /feed/<t>/overlay and the hub's
   /hub/overlay): graphics are laid out once on a fixed 1920×1080 stage and the stage is scaled
   and centred to whatever size the browser source has, so the title-safe margins in
   overlay.css hold at 1080p, 720p or any other size. One copy, so the two cannot drift. */
window.GTStage = {
  W: 1920,
  H: 1080,
  /* Scale `stage` to the window now and on every resize; `root.dataset.scale` tells tests. */
  fit: function (stage, root) {
    var W = this.W, H = this.H;
    function fit() {
      var s = Math.min(window.innerWidth / W, window.innerHeight / H);
      stage.style.transform = "scale(" + s + ")";
      stage.style.left = Math.max(0, (window.innerWidth - W * s) / 2) + "px";
      stage.style.top = Math.max(0, (window.innerHeight - H * s) / 2) + "px";
      root.dataset.scale = s.toFixed(4);
    }
    window.addEventListener("resize", fit);
    fit();
  }
};
